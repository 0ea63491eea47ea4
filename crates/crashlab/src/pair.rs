//! One failover round on a replicated pair: commit on a thread until the primary is lost,
//! promote the standby, check every acknowledged root on it.

use std::path::Path;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

#[allow(unused_imports)] // the profiles' backends may not be built
use triebench_kv::{KvResult, Profile, Store, StoreVisitor};
use triebench_record::failover::FailoverRound;

use crate::check::CheckVisitor;
use crate::child::commit_forever;
use crate::error::CrashError;
use crate::verify::RootFate;

/// How long a fresh pair may take to open and commit once.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// A store on a primary with a standby: lose the primary, then fail over.
trait Pair: Store + Sized + 'static {
    fn kill_primary(&self);
    fn fail_over(self) -> KvResult<Self>;
}

#[cfg(feature = "postgres-db")]
impl Pair for triebench_kv::postgres::PgStore {
    fn kill_primary(&self) {
        triebench_kv::postgres::PgStore::kill_primary(self)
    }
    fn fail_over(self) -> KvResult<Self> {
        triebench_kv::postgres::PgStore::fail_over(self)
    }
}

#[cfg(feature = "redis-db")]
impl Pair for triebench_kv::redis::RedisStore {
    fn kill_primary(&self) {
        triebench_kv::redis::RedisStore::kill_primary(self)
    }
    fn fail_over(self) -> KvResult<Self> {
        triebench_kv::redis::RedisStore::fail_over(self)
    }
}

/// Opens a fresh pair of `profile` in `dir`, commits until the primary is lost
/// `crash_after` after the first commit, fails over and checks the acknowledged roots on
/// the promoted standby.
pub(crate) fn round(
    profile: Profile,
    dir: &Path,
    seed: u64,
    crash_after: Duration,
) -> Result<FailoverRound, CrashError> {
    let fail = |e: &dyn std::fmt::Display| CrashError::PairOpen {
        dir: dir.to_path_buf(),
        reason: e.to_string(),
    };
    let net = triebench_kv::net_hop::net_from_env()?;
    let link = triebench_kv::net_hop::standby_link_from_env(net)?;
    let _ = (&fail, &link, seed, crash_after);
    match profile {
        #[cfg(feature = "postgres-db")]
        Profile::PostgresSyncStandby
        | Profile::PostgresRemoteApply
        | Profile::PostgresAsyncStandby => {
            use triebench_kv::postgres::{PgOptions, PgStore, StandbyMode};
            let mode = match profile {
                Profile::PostgresSyncStandby => StandbyMode::Sync,
                Profile::PostgresRemoteApply => StandbyMode::RemoteApply,
                _ => StandbyMode::Async,
            };
            let options = PgOptions {
                net,
                ..PgOptions::default()
            };
            let store =
                PgStore::open_replicated(dir, triebench_merkle::TABLES, options, mode, link)
                    .map_err(|e| fail(&e))?;
            run(store, dir, seed, crash_after)
        }
        #[cfg(feature = "redis-db")]
        Profile::RedisReplicaWait => {
            use triebench_kv::redis::{RedisOptions, RedisStore};
            let options = RedisOptions {
                net,
                ..RedisOptions::default()
            };
            let store = RedisStore::open_replicated(dir, triebench_merkle::TABLES, options, link)
                .map_err(|e| fail(&e))?;
            run(store, dir, seed, crash_after)
        }
        other => Err(CrashError::PairNotBuilt(other.to_string())),
    }
}

#[allow(dead_code)] // without a backend that has a pair
fn run<S: Pair>(
    store: S,
    dir: &Path,
    seed: u64,
    crash_after: Duration,
) -> Result<FailoverRound, CrashError> {
    let acks: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());
    let (first_tx, first_rx) = mpsc::channel::<()>();
    let (kill_at, committer_error) = std::thread::scope(|s| {
        let committer = s.spawn(|| {
            let first = Mutex::new(Some(first_tx));
            let ack = |root: &str| {
                let at = Instant::now();
                acks.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((root.to_string(), at));
                if let Some(tx) = first.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    let _ = tx.send(());
                }
                Ok(())
            };
            match commit_forever(&store, None, seed, || Ok(()), ack) {
                Err(e) => e.to_string(),
                Ok(never) => match never {},
            }
        });
        let first = first_rx.recv_timeout(READY_TIMEOUT);
        if first.is_ok() {
            std::thread::sleep(crash_after);
        }
        let kill_at = Instant::now();
        store.kill_primary();
        let error = committer
            .join()
            .unwrap_or_else(|_| "the committing thread panicked".to_string());
        (first.map(|()| kill_at), error)
    });
    let Ok(kill_at) = kill_at else {
        return Err(CrashError::NoCommit {
            dir: dir.to_path_buf(),
            reason: committer_error,
        });
    };
    let acks = acks.into_inner().unwrap_or_else(|p| p.into_inner());
    let promoted = store.fail_over().map_err(|source| CrashError::Promote {
        dir: dir.to_path_buf(),
        source,
    })?;
    let failover_ms = kill_at.elapsed().as_millis() as u64;
    let roots: Vec<String> = acks.iter().map(|(r, _)| r.clone()).collect();
    let (check, _) = CheckVisitor::new(&roots, seed).visit(promoted)?;
    let before_kill = |at: Instant| kill_at.saturating_duration_since(at).as_micros() as u64;
    let lost_window_us = check
        .roots
        .iter()
        .zip(&acks)
        .find(|(c, _)| c.fate == RootFate::Lost)
        .map(|(_, (_, at))| before_kill(*at));
    Ok(FailoverRound {
        crash_after_ms: crash_after.as_millis() as u64,
        acknowledged: check.acknowledged() as u64,
        lost: check.lost() as u64,
        lost_tail: check.lost_tail() as u64,
        corrupt: check.corrupt() as u64,
        last_ack_to_kill_us: acks.last().map(|(_, at)| before_kill(*at)),
        lost_window_us,
        failover_ms,
    })
}
