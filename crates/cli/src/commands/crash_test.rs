//! `triebench crash-test`: kills a committing process at random moments (optionally cutting
//! power first, emulated by slowfs) and checks that every root it acknowledged survived intact.
//!
//! Each round starts `triebench crash-child` on the store, lets it commit for a random time,
//! then (with `--power-loss`) cuts power on the slowfs mount it writes through, kills it with
//! SIGKILL, waits for anything it started (a managed redis-server) to die, reopens the store and
//! checks every root the child acknowledged (`triebench_workloads::crash::check_roots`), then
//! commits once more to show the store still works. The driver logic is in
//! `triebench_workloads::crash`; the process work in `crash_round`, the mount in
//! `crash_power`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use triebench_kv::{BackendSpec, Durability, Profile, Store, StoreVisitor};
use triebench_merkle::MerkleTrie;
use triebench_record::crash::{
    CrashFile, CrashRound, CrashRun, CRASH_FILE, MODE_POWER, MODE_PROCESS,
};
use triebench_record::file::write_atomically;
use triebench_workloads::crash::{check_roots, BatchGen, RootFate, RoundCheck};
use triebench_workloads::rng::XorShift64Star;

use crate::commands::crash_power::{PowerMount, POWER_LIMITS};
use crate::commands::crash_round::{adopt_orphans, reap_leftovers, RunningChild};
use crate::error::CliError;
use triebench_measure::outputs::writable_dir;

#[derive(Debug, Args)]
pub struct CrashTestArgs {
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME")]
    pub backend: String,
    /// Directory for the store [default: a fresh temporary directory, removed on exit]. With
    /// --power-loss it is the backing directory of the slowfs mount.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Crash rounds (at least 1).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub rounds: u64,
    /// Cut power (slowfs drops every write not yet fsynced) before each kill.
    #[arg(long)]
    pub power_loss: bool,
    /// Write (or update) DIR/crash.json with this run's counts.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the batches and crash moments [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// The latest crash moment, in milliseconds after the child's first commit.
    #[arg(long, default_value_t = 400, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_crash_ms: u64,
    /// Explore crash states under this model instead of cutting power at random moments:
    /// clean, metadata, reordered, torn or torn/SECTOR (needs --power-loss). Each round records
    /// the op log of a short workload and checks sampled states at every sync-family call.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<triebench_slowfs::model::CrashModel>,
    /// With --model: commits in each round's workload.
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub commits: u64,
    /// With --model: states sampled at each crash point (the clean cut has one).
    #[arg(long, default_value_t = 16, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub states_per_point: u32,
    /// With --model: crash points sampled (seeded) between two sync calls, after a write,
    /// truncation or name change, besides the point at each sync call (0: sync calls only).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub between: u32,
    /// With --model: check at most N crash points per round, a seeded sample of those the
    /// other settings select (0: all). For a quick look at a backend whose every state is slow
    /// to check, such as `postgres` (a server started on each state).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_points: usize,
    /// With --model: run only this round (from 1), to reproduce a violation.
    #[arg(long, value_name = "N", requires = "only_state")]
    pub only_round: Option<u64>,
    /// With --model and --only-round: check only this state (POINT:SAMPLE).
    #[arg(long, value_name = "POINT:SAMPLE", requires = "only_round")]
    pub only_state: Option<triebench_slowfs::model::StateId>,
    /// Inject EIO into one fsync of a commit and report whether the commit failed, whether the
    /// store refuses or carries on, and whether later acknowledged commits survive (needs
    /// --power-loss).
    #[arg(long, conflicts_with = "model")]
    pub fsync_eio: bool,
    /// Kill the primary of a profile with a standby (postgres-sync-standby,
    /// postgres-remote-apply, postgres-async-standby, redis-replica-wait) mid-run, promote the
    /// standby and check every acknowledged root on it; each round on a fresh pair in
    /// DIR/failover-N. Writes failover.json and failover.md with --out.
    #[arg(long, conflicts_with_all = ["model", "fsync_eio", "power_loss"])]
    pub failover: bool,
    /// With --failover: round trip added on the primary-standby replication link only (a far
    /// standby), instead of --net-rtt's [default: $TRIEBENCH_STANDBY_RTT, else --net-rtt's].
    #[arg(long, value_name = "DURATION", requires = "failover")]
    pub standby_rtt: Option<String>,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

/// Checks the acknowledged roots and commits once more, on the reopened store.
pub(crate) struct CheckVisitor<'a> {
    roots: &'a [String],
    seed: u64,
}

impl<'a> CheckVisitor<'a> {
    /// Checks `roots` (in acknowledgement order); the further commit's batch comes from `seed`.
    pub(crate) fn new(roots: &'a [String], seed: u64) -> Self {
        CheckVisitor { roots, seed }
    }
}

impl StoreVisitor for CheckVisitor<'_> {
    type Output = Result<(RoundCheck, String), CliError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let check = check_roots(&store, self.roots)
            .map_err(|e| CliError::CrashTest(format!("the reopened store cannot be read: {e}")))?;
        let further = || -> Result<String, triebench_merkle::MerkleError> {
            let mut trie = MerkleTrie::new(&store)?;
            if let Some(root) = check.newest_intact() {
                trie.set_root(root)?;
            }
            let live = trie.leaves("")?.into_iter().map(|(a, _)| a);
            let batch = BatchGen::new(self.seed, live).next_batch();
            trie.commit(&batch)
        };
        let root = further()
            .map_err(|e| CliError::CrashTest(format!("a commit after recovery failed: {e}")))?;
        let after = check_roots(&store, std::slice::from_ref(&root))
            .map_err(|e| CliError::CrashTest(format!("the store cannot be read: {e}")))?;
        if after.roots.first().map(|c| &c.fate) != Some(&RootFate::Intact) {
            return Err(CliError::CrashTest(format!(
                "the commit after recovery (root {root}) does not read back"
            )));
        }
        Ok((check, root))
    }
}

pub fn run_crash_test(args: CrashTestArgs) -> Result<(), CliError> {
    let net = args.net.apply()?;
    let profile: Profile = args.backend.parse()?;
    if let Some(out) = &args.out {
        // Before the rounds, not after: the folder takes the counts, and a crash.json that is
        // there already must be one this run can add to.
        writable_dir("--out", out)?;
        read_crash_file(&out.join(CRASH_FILE))?;
    }
    let (dir, _temp) = work_dir(args.dir.as_deref(), "triebench-crash-")?;
    let mode = if args.power_loss {
        MODE_POWER
    } else {
        MODE_PROCESS
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    adopt_orphans();
    let mut rng = XorShift64Star::new(seed);
    let mut power = if args.power_loss {
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
        net: triebench_kv::net_hop::net_record(net),
        limits: if args.power_loss {
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
    for round in 1..=args.rounds {
        let round_seed = rng.next_u64();
        let crash_after = Duration::from_millis(rng.below(args.max_crash_ms.max(1) as u32) as u64);
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
        #[cfg(any(feature = "redis-db", feature = "postgres-db"))]
        triebench_kv::remove_orphaned_server_dirs();
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
                write_out(&args.out, &run)?;
                return Err(e);
            }
        };
        record(&mut run, &check, crash_after);
        from = (profile.durability() != Durability::Volatile).then_some(further);
        progress(tty, round, args.rounds, &run, started);
    }
    if tty {
        eprintln!();
    }
    write_out(&args.out, &run)?;
    println!("{}", summary(&run));
    Ok(())
}

/// Reopens the store in `dir` and checks `roots` on it.
pub(crate) fn check(
    profile: Profile,
    dir: &Path,
    roots: &[String],
    seed: u64,
) -> Result<(RoundCheck, String), CliError> {
    let spec = BackendSpec::new(profile, Some(dir.to_path_buf()))?;
    spec.open(triebench_merkle::TABLES, CheckVisitor { roots, seed })
        .map_err(|e| CliError::CrashTest(format!("the store no longer opens: {e}")))?
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

/// The one line the command prints.
pub fn summary(run: &CrashRun) -> String {
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

/// The counts `path` holds from earlier runs; none when there is no such file.
fn read_crash_file(path: &Path) -> Result<CrashFile, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            CliError::CrashTest(format!(
                "{} is not a crash file this version can add to ({e}); move it away or choose \
                 another --out",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CrashFile::default()),
        Err(e) => Err(CliError::CrashTest(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn write_out(out: &Option<PathBuf>, run: &CrashRun) -> Result<(), CliError> {
    let Some(dir) = out else { return Ok(()) };
    let fail = |e: String| CliError::CrashTest(format!("cannot write {}: {e}", dir.display()));
    triebench_measure::make_dir::make_dir("--out", dir)?;
    let path = dir.join(CRASH_FILE);
    let mut file = read_crash_file(&path)?;
    file.merge(run.clone());
    let text = serde_json::to_string_pretty(&file).map_err(|e| fail(e.to_string()))?;
    write_atomically(&path, (text + "\n").as_bytes()).map_err(|e| fail(e.to_string()))?;
    let table = format!(
        "# What each profile loses\n\n{}",
        triebench_report::render::crash_section::table(&file)
    );
    write_atomically(&dir.join("crash.md"), table.as_bytes()).map_err(|e| fail(e.to_string()))?;
    write_env(dir)
}

/// Writes DIR/env.json: the machine and software the counts come from (rewritten with each
/// run).
pub(crate) fn write_env(dir: &Path) -> Result<(), CliError> {
    let fail = |e: String| CliError::CrashTest(format!("cannot write {}: {e}", dir.display()));
    let env = serde_json::json!({
        "generated_at": triebench_record::time::now(),
        "host": triebench_record::host::capture_host(),
        "versions": triebench_measure::versions::capture(),
        "command": std::env::args().collect::<Vec<_>>().join(" "),
    });
    let env = serde_json::to_string_pretty(&env).map_err(|e| fail(e.to_string()))?;
    write_atomically(&dir.join("env.json"), (env + "\n").as_bytes())
        .map_err(|e| fail(e.to_string()))
}

pub(crate) fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}

/// The directory a crash test works in: `dir` (created if needed), or else a fresh temporary
/// directory named `prefix...`, removed when the returned guard drops.
pub(crate) fn work_dir(
    dir: Option<&std::path::Path>,
    prefix: &str,
) -> Result<(std::path::PathBuf, Option<tempfile::TempDir>), CliError> {
    match dir {
        Some(dir) => {
            triebench_measure::make_dir::make_dir("--dir", dir)?;
            Ok((dir.to_path_buf(), None))
        }
        None => {
            let temp = tempfile::Builder::new()
                .prefix(prefix)
                .tempdir()
                .map_err(CliError::TempDir)?;
            Ok((temp.path().to_path_buf(), Some(temp)))
        }
    }
}
