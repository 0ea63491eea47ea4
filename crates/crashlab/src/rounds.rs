//! The process-kill and power-cut rounds: kill a committing child at random moments
//! (optionally cutting power first, emulated by slowfs) and check that every root it
//! acknowledged survived intact.
//!
//! Each round starts the child ([`crate::child`]) on the store, lets it commit for a random
//! time, then (with power loss) cuts power on the slowfs mount it writes through
//! ([`crate::power`]), kills it with SIGKILL, waits for anything it started (a managed
//! redis-server) to die ([`crate::round`]), reopens the store and checks every root the child
//! acknowledged, then commits once more to show the store still works ([`crate::check`]).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use triebench_kv::{Durability, Profile};
use triebench_record::crash::{CrashFile, CrashRound, CrashRun, MODE_POWER, MODE_PROCESS};
use triebench_record::net::NetRecord;
use triebench_workloads::rng::XorShift64Star;

use crate::check::check;
use crate::error::CrashError;
use crate::folders::{work_dir, Folders};
use crate::power::{PowerMount, POWER_LIMITS};
use crate::round::{adopt_orphans, reap_leftovers, RunningChild};
use crate::verify::RoundCheck;

/// What the process-kill and power-cut rounds run on, and where their counts go.
#[derive(Debug, Clone)]
pub struct RoundsOptions {
    /// The backend profile.
    pub profile: Profile,
    /// Directory for the store (made if missing; with power loss, the mount's backing
    /// directory); `None`: a fresh temporary directory, removed at the end.
    pub dir: Option<PathBuf>,
    /// Crash rounds (at least 1).
    pub rounds: u64,
    /// Cut power (slowfs drops every write not yet fsynced) before each kill.
    pub power_loss: bool,
    /// Merge the run into this folder's `crash.json` (and write `crash.md`, `env.json`).
    pub out: Option<PathBuf>,
    /// Seed of the batches and crash moments; `None`: from the clock.
    pub seed: Option<u64>,
    /// The latest crash moment, in milliseconds after the child's first commit.
    pub max_crash_ms: u64,
    /// The emulated network to the managed server, recorded with the run.
    pub net: Option<NetRecord>,
}

/// Runs the rounds `options` asks for and returns the run, saved in `options.out` first.
/// Progress goes to stderr (a line every ten rounds, or one rewritten line on a terminal).
///
/// # Errors
/// A round that cannot run, or a store that no longer opens or reads after a crash (the run
/// so far is saved first); a folder or result file that cannot be made, read or written.
pub fn crash_rounds(
    options: &RoundsOptions,
    folders: &dyn Folders,
) -> Result<CrashRun, CrashError> {
    let profile = options.profile;
    if let Some(out) = &options.out {
        crate::results::check::<CrashFile>(folders, out)?;
    }
    let (dir, _temp) = work_dir(folders, options.dir.as_deref(), "triebench-crash-")?;
    let mode = if options.power_loss {
        MODE_POWER
    } else {
        MODE_PROCESS
    };
    let seed = crate::seed::or_clock(options.seed);
    adopt_orphans();
    let mut rng = XorShift64Star::new(seed);
    let mut power = if options.power_loss {
        Some(PowerMount::new(&dir)?)
    } else {
        None
    };
    let mut run = CrashRun {
        profile: profile.name().to_string(),
        promised: profile.durability().name().to_string(),
        mode: mode.to_string(),
        rounds: 0,
        acknowledged: 0,
        lost: 0,
        corrupt: 0,
        rounds_with_loss: 0,
        max_lost_tail: 0,
        leftover_processes: 0,
        first_corruption: None,
        net: options.net.clone(),
        limits: if options.power_loss {
            POWER_LIMITS.iter().map(|s| s.to_string()).collect()
        } else {
            Vec::new()
        },
        seed,
        per_round: Vec::new(),
    };
    let mut from: Option<String> = None;
    let tty = std::io::stderr().is_terminal();
    let started = Instant::now();
    for round in 1..=options.rounds {
        let round_seed = rng.next_u64();
        let crash_after =
            Duration::from_millis(rng.below(options.max_crash_ms.max(1) as u32) as u64);
        if let Some(p) = power.as_mut() {
            p.mount()?;
        }
        let work_dir = power
            .as_ref()
            .map_or(dir.clone(), |p| p.mountpoint().to_path_buf());
        let mut child =
            RunningChild::start(profile.name(), &work_dir, round_seed, from.as_deref())?;
        child.wait_ready()?;
        std::thread::sleep(crash_after);
        child.check_alive()?;
        if let Some(p) = &power {
            p.cut()?;
        }
        let roots = child.kill();
        let mut watched = vec![dir.clone()];
        watched.extend(power.as_ref().map(|p| p.mountpoint().to_path_buf()));
        let known: Vec<u32> = power
            .as_ref()
            .and_then(PowerMount::server_pid)
            .into_iter()
            .collect();
        run.leftover_processes += reap_leftovers(&watched, &known);
        // The killed child's managed server left its private socket directory (issue 34).
        crate::cleanup::remove_orphaned_server_dirs();
        // After a cut: unmount (nothing more reaches the disk), then check on a fresh mount
        // at the same path, whose unmount keeps everything.
        if let Some(p) = power.as_mut() {
            p.unmount()?;
            p.mount()?;
        }
        let outcome = check(profile, &work_dir, &roots, round_seed);
        if let Some(p) = power.as_mut() {
            p.unmount()?;
        }
        let (check, further) = match outcome {
            Ok(pair) => pair,
            Err(e) => {
                run.corrupt += 1;
                run.rounds += 1;
                run.per_round.push(CrashRound {
                    crash_after_ms: crash_after.as_millis() as u64,
                    acknowledged: roots.len() as u64,
                    lost: 0,
                    lost_tail: 0,
                    corrupt: 0,
                    unopenable: true,
                });
                run.first_corruption.get_or_insert_with(|| e.to_string());
                save(folders, &options.out, &run)?;
                return Err(e);
            }
        };
        record(&mut run, &check, crash_after);
        from = (profile.durability() != Durability::Volatile).then_some(further);
        progress(tty, round, options.rounds, &run, started);
    }
    if tty {
        eprintln!();
    }
    save(folders, &options.out, &run)?;
    Ok(run)
}

fn record(run: &mut CrashRun, check: &RoundCheck, crash_after: Duration) {
    let (lost, corrupt, tail) = (
        check.lost() as u64,
        check.corrupt() as u64,
        check.lost_tail() as u64,
    );
    run.rounds += 1;
    run.acknowledged += check.acknowledged() as u64;
    run.lost += lost;
    run.corrupt += corrupt;
    run.rounds_with_loss += u64::from(lost > 0);
    run.max_lost_tail = run.max_lost_tail.max(tail);
    if let Some((root, why)) = check.first_corruption() {
        run.first_corruption
            .get_or_insert_with(|| format!("root {root}: {why}"));
    }
    run.per_round.push(CrashRound {
        crash_after_ms: crash_after.as_millis() as u64,
        acknowledged: check.acknowledged() as u64,
        lost,
        lost_tail: tail,
        corrupt,
        unopenable: false,
    });
}

fn progress(tty: bool, round: u64, rounds: u64, run: &CrashRun, started: Instant) {
    let line = format!(
        "crash-test {} {}: round {round}/{rounds}, {} acknowledged, {} lost, {} corrupt ({:.0} s)",
        run.profile,
        run.mode,
        run.acknowledged,
        run.lost,
        run.corrupt,
        started.elapsed().as_secs_f64()
    );
    let mut err = std::io::stderr();
    if tty {
        let _ = write!(err, "\r{line}");
        let _ = err.flush();
    } else if round == rounds || round.is_multiple_of(10) {
        let _ = writeln!(err, "{line}");
    }
}

/// The line (and the limits not covered, one a line) a run is summed up in.
pub fn crash_summary(run: &CrashRun) -> String {
    let mut line = format!(
        "{} (durability: {}), {}: {} rounds, {} commits acknowledged, {} lost \
         ({} rounds with loss, loss window up to {}), {} corrupt",
        run.profile,
        run.promised,
        run.mode,
        run.rounds,
        run.acknowledged,
        run.lost,
        run.rounds_with_loss,
        run.max_lost_tail,
        run.corrupt
    );
    if run.leftover_processes > 0 {
        line.push_str(&format!(
            ", {} leftover processes killed",
            run.leftover_processes
        ));
    }
    if let Some(first) = &run.first_corruption {
        line.push_str(&format!("; first damage: {first}"));
    }
    for limit in &run.limits {
        line.push_str(&format!("\n  not covered: {limit}"));
    }
    line
}

/// Merges the run into `out`'s `crash.json` and writes `crash.md` (the report's table) and
/// `env.json`.
fn save(folders: &dyn Folders, out: &Option<PathBuf>, run: &CrashRun) -> Result<(), CrashError> {
    let Some(out) = out else { return Ok(()) };
    crate::results::save(
        folders,
        out,
        |file: &mut CrashFile| file.merge(run.clone()),
        |file| {
            format!(
                "# What each profile loses\n\n{}",
                triebench_report::render::crash_section::table(file)
            )
        },
    )
}
