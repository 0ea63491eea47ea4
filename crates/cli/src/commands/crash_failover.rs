//! `triebench crash-test --failover`: loses the primary of a replicated pair mid-run (its
//! replication link cut, every process of it SIGKILLed), promotes the standby, and checks every
//! acknowledged root on it.
//!
//! Each round starts a fresh pair in `DIR/failover-N` (`PgStore::open_replicated` or
//! `RedisStore::open_replicated`), commits random batches on a thread of this process, noting
//! when each `commit` returned (an acknowledged root), loses the primary a random moment after
//! the first commit, promotes the standby (`fail_over`: `pg_promote`, `REPLICAOF NO ONE`), and
//! on it checks every acknowledged root (it opens, its leaves read back and recompute it), then
//! commits once more. Lost commits, the newest lost (in commits) and the time from the oldest
//! lost acknowledgement to the kill (the loss window in time) are recorded per round in
//! `failover.json`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use triebench_kv::{Failover, Profile};
use triebench_record::failover::{FailoverFile, FailoverRound, FailoverRun, FAILOVER_FILE};
use triebench_record::file::write_atomically;
use triebench_workloads::rng::XorShift64Star;

use crate::commands::crash_test::CrashTestArgs;
use crate::error::CliError;
use triebench_measure::outputs::writable_dir;

/// How long a fresh pair may take to open and commit once.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs the failover rounds `args` asks for.
pub fn run_failover(args: CrashTestArgs) -> Result<(), CliError> {
    let net = args.net.apply()?;
    if let Some(rtt) = &args.standby_rtt {
        std::env::set_var(triebench_kv::net_hop::STANDBY_RTT_ENV, rtt);
    }
    let link = triebench_kv::net_hop::standby_link_from_env(net)?;
    if let Some(spec) = link {
        eprintln!("net: the standby reaches the primary through a delay proxy: {spec}");
    }
    let profile: Profile = args.backend.parse()?;
    let Some(promise) = profile.failover() else {
        let with: Vec<&str> = Profile::ALL
            .into_iter()
            .filter(|p| p.failover().is_some())
            .map(Profile::name)
            .collect();
        return Err(CliError::CrashTest(format!(
            "--failover needs a profile with a standby ({}); {} has none it fails over to",
            with.join(", "),
            profile.name()
        )));
    };
    if let Some(out) = &args.out {
        writable_dir("--out", out)?;
        read_file(&out.join(FAILOVER_FILE))?;
    }
    let (dir, _temp) =
        crate::commands::crash_test::work_dir(args.dir.as_deref(), "triebench-failover-")?;
    let seed = args
        .seed
        .unwrap_or_else(crate::commands::crash_test::clock_seed);
    let mut rng = XorShift64Star::new(seed);
    let mut run = FailoverRun {
        profile: profile.name().to_string(),
        promised: promise.name().to_string(),
        rounds: 0,
        acknowledged: 0,
        lost: 0,
        corrupt: 0,
        rounds_with_loss: 0,
        max_lost_tail: 0,
        max_lost_window_us: None,
        net: triebench_kv::net_hop::net_record(net),
        standby_link: triebench_kv::net_hop::net_record(link),
        seed,
        per_round: Vec::new(),
    };
    let started = Instant::now();
    for n in 1..=args.rounds {
        let round_seed = rng.next_u64();
        let crash_after = Duration::from_millis(rng.below(args.max_crash_ms.max(1) as u32) as u64);
        let round_dir = dir.join(format!("failover-{n}"));
        if round_dir.exists() {
            return Err(CliError::CrashTest(format!(
                "{} exists already; choose an empty --dir",
                round_dir.display()
            )));
        }
        let round = match pair::round(profile, &round_dir, round_seed, crash_after) {
            Ok(round) => round,
            Err(e) => {
                // The rounds so far are kept; the failed round's directory stays to be read.
                write_out(&args.out, &run)?;
                return Err(CliError::CrashTest(format!("round {n}: {e}")));
            }
        };
        let leftovers =
            crate::commands::crash_round::reap_leftovers(std::slice::from_ref(&round_dir), &[]);
        if leftovers > 0 {
            return Err(CliError::CrashTest(format!(
                "round {n}: {leftovers} server processes outlived the round"
            )));
        }
        std::fs::remove_dir_all(&round_dir).map_err(|e| {
            CliError::CrashTest(format!("cannot remove {}: {e}", round_dir.display()))
        })?;
        record(&mut run, round);
        let last = run.per_round.last();
        eprintln!(
            "crash-test --failover {}: round {n}/{}: {} acknowledged, {} lost (last ack {} before \
             the kill); total {} acknowledged, {} lost, {} corrupt ({:.0} s)",
            run.profile,
            args.rounds,
            last.map_or(0, |r| r.acknowledged),
            last.map_or(0, |r| r.lost),
            last.and_then(|r| r.last_ack_to_kill_us)
                .map_or("–".to_string(), |us| format!("{:.1} ms", us as f64 / 1e3)),
            run.acknowledged,
            run.lost,
            run.corrupt,
            started.elapsed().as_secs_f64()
        );
        if promise == Failover::Acknowledged && run.corrupt > 0 {
            break;
        }
    }
    write_out(&args.out, &run)?;
    println!("{}", summary(&run));
    if run.corrupt > 0 {
        return Err(CliError::CrashTest(format!(
            "{} acknowledged roots were damaged on the promoted standby",
            run.corrupt
        )));
    }
    Ok(())
}

fn record(run: &mut FailoverRun, round: FailoverRound) {
    run.rounds += 1;
    run.acknowledged += round.acknowledged;
    run.lost += round.lost;
    run.corrupt += round.corrupt;
    run.rounds_with_loss += u64::from(round.lost > 0);
    run.max_lost_tail = run.max_lost_tail.max(round.lost_tail);
    if let Some(w) = round.lost_window_us {
        run.max_lost_window_us = Some(run.max_lost_window_us.unwrap_or(0).max(w));
    }
    run.per_round.push(round);
}

/// The one line the command prints.
pub fn summary(run: &FailoverRun) -> String {
    let window = run.max_lost_window_us.map_or(String::new(), |us| {
        format!(
            ", oldest lost acknowledged {:.1} ms before the kill",
            us as f64 / 1e3
        )
    });
    format!(
        "{} (failover: {}), primary killed and standby promoted: {} rounds, {} commits \
         acknowledged, {} lost ({} rounds with loss, loss window up to {} commits{window}), {} \
         corrupt",
        run.profile,
        run.promised,
        run.rounds,
        run.acknowledged,
        run.lost,
        run.rounds_with_loss,
        run.max_lost_tail,
        run.corrupt
    )
}

/// The markdown table `--out` writes as `failover.md`.
pub fn table(file: &FailoverFile) -> String {
    let mut out = String::from(
        "# What a failover loses\n\n`triebench crash-test --failover` loses the primary's host a \
         random moment into each round (cuts the replication link, dropping what is still in \
         its delay proxy, and SIGKILLs every primary process), promotes the standby and checks \
         every acknowledged root on it. *window* = the newest acknowledged commits \
         lost in one round; *time* = from the oldest lost commit's acknowledgement to the kill; \
         *last ack* = from the last acknowledgement to the kill (median over rounds).\n\n\
         | profile | promises | store rtt | standby rtt | rounds | acknowledged | lost | rounds with loss | \
         window up to | time up to | last ack (median) | failover (median) | corrupt |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in &file.runs {
        let median = |mut v: Vec<u64>| {
            v.sort_unstable();
            v.get(v.len() / 2).copied()
        };
        let last_ack = median(
            r.per_round
                .iter()
                .filter_map(|x| x.last_ack_to_kill_us)
                .collect(),
        );
        let failover = median(r.per_round.iter().map(|x| x.failover_ms).collect());
        let rtt = |n: &Option<triebench_record::net::NetRecord>| {
            n.as_ref()
                .map_or("straight".to_string(), |n| format!("{} µs", n.rtt_us))
        };
        let ms =
            |us: Option<u64>| us.map_or("–".into(), |us| format!("{:.1} ms", us as f64 / 1e3));
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.profile,
            r.promised,
            rtt(&r.net),
            rtt(&r.standby_link),
            r.rounds,
            r.acknowledged,
            if r.lost == 0 {
                "**0**".to_string()
            } else {
                r.lost.to_string()
            },
            r.rounds_with_loss,
            r.max_lost_tail,
            ms(r.max_lost_window_us),
            ms(last_ack),
            failover.map_or("–".into(), |f| format!("{f} ms")),
            r.corrupt
        ));
    }
    out
}

fn read_file(path: &Path) -> Result<FailoverFile, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            CliError::CrashTest(format!(
                "{} is not a failover file this version can add to ({e}); move it away or \
                 choose another --out",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FailoverFile::default()),
        Err(e) => Err(CliError::CrashTest(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn write_out(out: &Option<PathBuf>, run: &FailoverRun) -> Result<(), CliError> {
    let Some(dir) = out else { return Ok(()) };
    let fail = |e: String| CliError::CrashTest(format!("cannot write {}: {e}", dir.display()));
    triebench_measure::make_dir::make_dir("--out", dir)?;
    let path = dir.join(FAILOVER_FILE);
    let mut file = read_file(&path)?;
    file.merge(run.clone());
    let text = serde_json::to_string_pretty(&file).map_err(|e| fail(e.to_string()))?;
    write_atomically(&path, (text + "\n").as_bytes()).map_err(|e| fail(e.to_string()))?;
    let mut md = table(&file);
    md.push('\n');
    write_atomically(&dir.join("failover.md"), md.as_bytes()).map_err(|e| fail(e.to_string()))?;
    let _ = std::io::stdout().flush();
    crate::commands::crash_test::write_env(dir)
}

mod pair {
    //! One round on a replicated pair.

    use std::path::Path;
    use std::sync::{mpsc, Mutex};
    use std::time::{Duration, Instant};

    #[allow(unused_imports)] // the profiles' backends may not be built
    use triebench_kv::{KvResult, Profile, Store, StoreVisitor};
    use triebench_record::failover::FailoverRound;
    use triebench_workloads::crash::{commit_forever, RootFate};

    use super::READY_TIMEOUT;
    use crate::commands::crash_test::CheckVisitor;
    use crate::error::CliError;

    /// A store on a primary with a standby: lose the primary, then fail over.
    trait Pair: Store + Sized {
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
    pub(super) fn round(
        profile: Profile,
        dir: &Path,
        seed: u64,
        crash_after: Duration,
    ) -> Result<FailoverRound, CliError> {
        let fail = |e: &dyn std::fmt::Display| {
            CliError::CrashTest(format!("cannot open the pair ({}): {e}", dir.display()))
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
                let store =
                    RedisStore::open_replicated(dir, triebench_merkle::TABLES, options, link)
                        .map_err(|e| fail(&e))?;
                run(store, dir, seed, crash_after)
            }
            other => Err(CliError::CrashTest(format!(
                "--failover is not built for {other} in this binary (features postgres-db, \
                 redis-db)"
            ))),
        }
    }

    #[allow(dead_code)] // without a backend that has a pair
    fn run<S: Pair>(
        store: S,
        dir: &Path,
        seed: u64,
        crash_after: Duration,
    ) -> Result<FailoverRound, CliError> {
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
            return Err(CliError::CrashTest(format!(
                "the pair in {} made no commit: {committer_error}",
                dir.display()
            )));
        };
        let acks = acks.into_inner().unwrap_or_else(|p| p.into_inner());
        let promoted = store.fail_over().map_err(|e| {
            CliError::CrashTest(format!("the failover failed ({}): {e}", dir.display()))
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
}
