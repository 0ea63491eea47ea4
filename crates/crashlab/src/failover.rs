//! The failover rounds (`crash-test --failover`): each loses the primary of a replicated pair
//! mid-run (its replication link cut, every process of it SIGKILLed), promotes the standby,
//! and checks every acknowledged root on it.
//!
//! Each round starts a fresh pair in `DIR/failover-N` (`PgStore::open_replicated` or
//! `RedisStore::open_replicated`), commits random batches on a thread of this process, noting
//! when each `commit` returned (an acknowledged root), loses the primary a random moment after
//! the first commit, promotes the standby (`fail_over`: `pg_promote`, `REPLICAOF NO ONE`), and
//! on it checks every acknowledged root (it opens, its leaves read back and recompute it), then
//! commits once more. Lost commits, the newest lost (in commits) and the time from the oldest
//! lost acknowledgement to the kill (the loss window in time) are recorded per round in
//! `failover.json`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use triebench_kv::{Failover, Profile};
use triebench_record::failover::{FailoverFile, FailoverRound, FailoverRun};
use triebench_record::net::NetRecord;
use triebench_workloads::rng::XorShift64Star;

use crate::error::CrashError;
use crate::folders::{work_dir, Folders};
use crate::round::reap_leftovers;

/// What the failover rounds run on, and where their counts go.
#[derive(Debug, Clone)]
pub struct FailoverOptions {
    /// A profile with a standby (`postgres-sync-standby`, `redis-replica-wait`, ...).
    pub profile: Profile,
    /// Directory for the rounds' pairs (`DIR/failover-N`, made if missing); `None`: a fresh
    /// temporary directory, removed at the end.
    pub dir: Option<PathBuf>,
    /// Rounds, each on a fresh pair.
    pub rounds: u64,
    /// Merge the run into this folder's `failover.json` (and write `failover.md`, `env.json`).
    pub out: Option<PathBuf>,
    /// Seed of the batches and kill moments; `None`: from the clock.
    pub seed: Option<u64>,
    /// The latest kill moment, in milliseconds after the first commit.
    pub max_crash_ms: u64,
    /// The emulated network between the store and the primary, recorded with the run (the
    /// pairs read the setting from the environment, `triebench_kv::net_hop`).
    pub net: Option<NetRecord>,
    /// The emulated network between the primary and the standby, recorded with the run.
    pub standby_link: Option<NetRecord>,
}

/// Runs the failover rounds `options` asks for and returns the run, saved in `options.out`
/// first; [`standby_damage`] then says whether the promoted standbys lost integrity. Progress
/// goes to stderr, a line per round.
///
/// # Errors
/// A profile without a standby, a round that cannot run (the rounds so far are saved first),
/// server processes that outlive a round, a folder or result file that cannot be used.
pub fn failover_rounds(
    options: &FailoverOptions,
    folders: &dyn Folders,
) -> Result<FailoverRun, CrashError> {
    let profile = options.profile;
    let Some(promise) = profile.failover() else {
        let with: Vec<&str> = Profile::ALL
            .into_iter()
            .filter(|p| p.failover().is_some())
            .map(Profile::name)
            .collect();
        return Err(CrashError::NoStandby {
            profile: profile.name().to_string(),
            with: with.join(", "),
        });
    };
    if let Some(out) = &options.out {
        crate::results::check::<FailoverFile>(folders, out)?;
    }
    let (dir, _temp) = work_dir(folders, options.dir.as_deref(), "triebench-failover-")?;
    let seed = crate::seed::or_clock(options.seed);
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
        net: options.net.clone(),
        standby_link: options.standby_link.clone(),
        seed,
        per_round: Vec::new(),
    };
    let started = Instant::now();
    for n in 1..=options.rounds {
        let round_seed = rng.next_u64();
        let crash_after =
            Duration::from_millis(rng.below(options.max_crash_ms.max(1) as u32) as u64);
        let round_dir = dir.join(format!("failover-{n}"));
        if round_dir.exists() {
            return Err(CrashError::RoundDirExists(round_dir));
        }
        let round = match crate::pair::round(profile, &round_dir, round_seed, crash_after) {
            Ok(round) => round,
            Err(e) => {
                // The rounds so far are kept; the failed round's directory stays to be read.
                save(folders, &options.out, &run)?;
                return Err(CrashError::Round {
                    round: n,
                    source: Box::new(e),
                });
            }
        };
        let leftovers = reap_leftovers(std::slice::from_ref(&round_dir), &[]);
        if leftovers > 0 {
            return Err(CrashError::Outlived {
                round: n,
                count: leftovers,
            });
        }
        std::fs::remove_dir_all(&round_dir).map_err(|source| CrashError::RemoveRoundDir {
            dir: round_dir.clone(),
            source,
        })?;
        record(&mut run, round);
        let last = run.per_round.last();
        eprintln!(
            "crash-test --failover {}: round {n}/{}: {} acknowledged, {} lost (last ack {} before \
             the kill); total {} acknowledged, {} lost, {} corrupt ({:.0} s)",
            run.profile,
            options.rounds,
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
    save(folders, &options.out, &run)?;
    Ok(run)
}

/// The verdict after the summary is shown: an error when any acknowledged root was damaged on
/// a promoted standby.
///
/// # Errors
/// [`CrashError::DamagedOnStandby`] with the count.
pub fn standby_damage(run: &FailoverRun) -> Result<(), CrashError> {
    if run.corrupt > 0 {
        return Err(CrashError::DamagedOnStandby(run.corrupt));
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

/// The line a failover run is summed up in.
pub fn failover_summary(run: &FailoverRun) -> String {
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

/// The markdown table saved as `failover.md`.
fn table(file: &FailoverFile) -> String {
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

/// Merges the run into `out`'s `failover.json` and writes `failover.md` and `env.json`.
fn save(folders: &dyn Folders, out: &Option<PathBuf>, run: &FailoverRun) -> Result<(), CrashError> {
    let Some(out) = out else { return Ok(()) };
    crate::results::save(
        folders,
        out,
        |file: &mut FailoverFile| file.merge(run.clone()),
        |file| {
            let mut md = table(file);
            md.push('\n');
            md
        },
    )
}
