//! `triebench crash-test --model M` and `--fsync-eio`: crash states explored, not crash moments.
//!
//! Each round mounts a fresh, empty store directory through slowfs with an op log
//! (`crash-mount --op-log`), runs a short workload in this process (open the store, commit
//! `--commits` random batches, writing `mark ROOT` to the control file after each acknowledged
//! commit), unmounts, and explores the log with `triebench_slowfs::model::explore`: at every
//! sync-family call and at up to `--between` seeded points between two of them (`PointPlan`),
//! `--states-per-point` states the model allows, each written to the (now unmounted) mount
//! point's path and given the recording's owners and modes (`crash_owners`), where the store
//! is reopened and checked as the power-cut rounds are (`crash_test::check`: every root
//! acknowledged before the crash point opens, reads back and recomputes; one more commit
//! succeeds). An `@open` note marks the open store in the op log; `postgres` profiles are
//! explored only after it (their `initdb` is the server's bootstrap, not the store).
//!
//! `--fsync-eio` records one workload without faults to count its fsyncs, then a second with
//! the fsync in the middle of it failing (`--fail-fsync N`), and reports what the failing
//! commit returned, whether the store refused later commits or carried on, and whether any
//! acknowledged root is lost in a crash after the failure.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor};
use triebench_merkle::MerkleTrie;
use triebench_record::crash_models::{
    CrashModelsFile, FsyncEioRun, ModelRun, ModelViolation, CRASH_MODELS_FILE,
};
use triebench_record::file::write_atomically;
use triebench_slowfs::model::oplog::{read_log, LoadedLog};
use triebench_slowfs::model::{
    explore, CrashModel, Exploration, Failure, LogOp, PointPlan, StateId,
};
use triebench_slowfs::CONTROL_FILE;
use triebench_workloads::crash::BatchGen;
use triebench_workloads::rng::XorShift64Star;

use crate::commands::crash_owners::restore_owners;
use crate::commands::crash_power::PowerMount;
use crate::commands::crash_round::adopt_orphans;
use crate::commands::crash_test::{check, clock_seed, write_env, CrashTestArgs};
use crate::error::CliError;
use triebench_measure::outputs::writable_dir;

/// What each commit of a recorded workload returned: its root, or its error.
type Outcomes = Vec<Result<String, String>>;

/// The note marked in the op log once the store is open (before the first commit).
const OPEN_NOTE: &str = "@open";

/// Writes `mark LABEL` to the mount's control file: the op log records it in order.
fn mark(control: &Path, label: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(control)
        .and_then(|mut c| c.write_all(format!("mark {label}").as_bytes()))
}

/// Whether crash points start only after the store opened: a managed PostgreSQL's `initdb`
/// (hundreds of fsyncs over a 40 MB cluster) is the server's bootstrap, not the store under
/// test, and a state there costs seconds.
fn from_open(profile: Profile) -> bool {
    matches!(
        profile,
        Profile::Postgres | Profile::PostgresAsync | Profile::PostgresUncached
    )
}

/// Commits `commits` batches on the store, marking each acknowledged root in the op log
/// through the control file; a failed commit is recorded and the next one tried.
struct Workload {
    commits: u64,
    seed: u64,
    control: PathBuf,
}

impl StoreVisitor for Workload {
    type Output = Result<Outcomes, CliError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let fail = |e: String| CliError::CrashTest(format!("the recorded workload failed: {e}"));
        let mut trie = MerkleTrie::new(&store).map_err(|e| fail(e.to_string()))?;
        mark(&self.control, OPEN_NOTE)
            .map_err(|e| fail(format!("cannot mark the open store: {e}")))?;
        let mut batches = BatchGen::new(self.seed, Vec::new());
        let mut out = Vec::new();
        for i in 0..self.commits {
            let batch = batches.next_batch();
            match trie.commit(&batch) {
                Ok(root) => {
                    mark(&self.control, &root)
                        .map_err(|e| fail(format!("cannot mark a commit: {e}")))?;
                    trie.set_root(&root).map_err(|e| fail(e.to_string()))?;
                    out.push(Ok(root));
                }
                Err(e) => {
                    out.push(Err(e.to_string()));
                    // The generator assumed the batch committed: start it again from the
                    // leaves the trie has, so later batches are valid whatever the store did.
                    // A store that cannot even be read now refuses everything after.
                    match trie.leaves("") {
                        Ok(leaves) => {
                            batches = BatchGen::new(
                                self.seed ^ (i + 1),
                                leaves.into_iter().map(|(a, _)| a),
                            )
                        }
                        Err(e) => {
                            let left = self.commits - i - 1;
                            out.extend((0..left).map(|_| Err(format!("unreadable: {e}"))));
                            break;
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// One recorded round: the op log, what each commit returned, and the mount point's path
/// (unmounted, where states are written and the store reopened).
struct Recorded {
    log: LoadedLog,
    outcomes: Outcomes,
    mount: PowerMount,
    /// The recording's backing directory: the owners and modes states get back.
    backing: PathBuf,
    _work: tempfile::TempDir,
}

/// Records one round: a fresh backing directory mounted with an op log (and `faults`), the
/// workload run on it, unmounted.
fn record_round(
    profile: Profile,
    commits: u64,
    seed: u64,
    faults: &[&str],
) -> Result<Recorded, CliError> {
    let work = tempfile::Builder::new()
        .prefix("triebench-explore-")
        .tempdir()
        .map_err(CliError::TempDir)?;
    let backing = work.path().join("backing");
    let log_dir = work.path().join("log");
    std::fs::create_dir(&backing).map_err(CliError::TempDir)?;
    let mut mount = PowerMount::new(&backing)?;
    let mut args: Vec<OsString> = vec!["--op-log".into(), log_dir.clone().into()];
    args.extend(faults.iter().map(OsString::from));
    mount.set_mount_args(args);
    mount.mount()?;
    let dir = mount.mountpoint().to_path_buf();
    let spec = BackendSpec::new(profile, Some(dir.clone()))?;
    let outcomes = spec.open(
        triebench_merkle::TABLES,
        Workload {
            commits,
            seed,
            control: dir.join(CONTROL_FILE),
        },
    );
    mount.unmount()?;
    #[cfg(any(feature = "redis-db", feature = "postgres-db"))]
    triebench_kv::remove_orphaned_server_dirs();
    let outcomes = outcomes.map_err(|e| {
        CliError::CrashTest(format!(
            "the store did not open on the recording mount: {e}"
        ))
    })??;
    let log = read_log(&log_dir)
        .map_err(|e| CliError::CrashTest(format!("cannot read the op log: {e}")))?;
    // The recording mount exists only on Linux (slowfs's FUSE side), where it must be gone.
    #[cfg(target_os = "linux")]
    if triebench_slowfs::mount::is_mount_point(&dir).unwrap_or(true) {
        return Err(CliError::CrashTest(format!(
            "{} is still mounted after the recording",
            dir.display()
        )));
    }
    Ok(Recorded {
        log,
        outcomes,
        mount,
        backing,
        _work: work,
    })
}

/// Gives the state in `dir` the owners and modes of the recording in `backing`, reopens the
/// store there and checks `roots`: a [`Failure`] for anything lost or wrong.
fn check_state(
    profile: Profile,
    dir: &Path,
    backing: &Path,
    roots: &[String],
    seed: u64,
) -> Result<(), Failure> {
    restore_owners(dir, backing).map_err(|e| Failure {
        kind: "harness".into(),
        detail: format!("cannot restore the state's owners and modes: {e}"),
    })?;
    let outcome = check(profile, dir, roots, seed);
    #[cfg(any(feature = "redis-db", feature = "postgres-db"))]
    triebench_kv::remove_orphaned_server_dirs();
    let (round, _) = outcome.map_err(|e| {
        let text = e.to_string();
        let kind = if text.contains("no longer opens") {
            "unopenable"
        } else if text.contains("after recovery") {
            "no-further-commit"
        } else {
            "unreadable"
        };
        Failure {
            kind: kind.into(),
            detail: text,
        }
    })?;
    if let Some((root, why)) = round.first_corruption() {
        return Err(Failure {
            kind: "corrupt".into(),
            detail: format!("root {root}: {why}"),
        });
    }
    if round.lost() > 0 {
        return Err(Failure {
            kind: "lost".into(),
            detail: format!(
                "{} of {} acknowledged roots lost (the newest {} of them)",
                round.lost(),
                round.acknowledged(),
                round.lost_tail()
            ),
        });
    }
    Ok(())
}

/// The per-round seeds of a run.
fn round_seeds(seed: u64, rounds: u64) -> Vec<u64> {
    let mut rng = XorShift64Star::new(seed);
    (0..rounds).map(|_| rng.next_u64()).collect()
}

pub fn run_explore(args: CrashTestArgs) -> Result<(), CliError> {
    let profile: Profile = args.backend.parse()?;
    if !args.power_loss {
        return Err(CliError::CrashTest(
            "--model and --fsync-eio explore power-loss states: add --power-loss".into(),
        ));
    }
    if args.dir.is_some() {
        return Err(CliError::CrashTest(
            "--model and --fsync-eio record each round in a fresh temporary directory: drop --dir"
                .into(),
        ));
    }
    if let Some(out) = &args.out {
        writable_dir("--out", out)?;
        read_models_file(&out.join(CRASH_MODELS_FILE))?;
    }
    adopt_orphans();
    let seed = args.seed.unwrap_or_else(clock_seed);
    if args.fsync_eio {
        return run_fsync_eio(&args, profile, seed);
    }
    let model = args.model.unwrap_or(CrashModel::Clean);
    let seeds = round_seeds(seed, args.rounds.max(args.only_round.unwrap_or(0)));
    let rounds: Vec<u64> = match args.only_round {
        Some(r) if r >= 1 => vec![r],
        Some(_) => return Err(CliError::CrashTest("--only-round counts from 1".into())),
        None => (1..=args.rounds).collect(),
    };
    let states_per_point = if model == CrashModel::Clean {
        1
    } else {
        args.states_per_point
    };
    let mut run = ModelRun {
        profile: profile.name().to_string(),
        promised: profile.durability().name().to_string(),
        model: model.to_string(),
        mount_flags: format!(
            "--power-loss --op-log (replayed as {model}; crash points at each sync call{}{}{})",
            if args.between > 0 {
                format!(" and up to {} between two", args.between)
            } else {
                String::new()
            },
            if args.max_points > 0 {
                format!(", at most {} per round", args.max_points)
            } else {
                String::new()
            },
            if from_open(profile) {
                ", from the open store on"
            } else {
                ""
            }
        ),
        rounds: 0,
        commits_per_round: args.commits,
        states_per_point: u64::from(states_per_point),
        crash_points: 0,
        states: 0,
        roots_checked: 0,
        violations: 0,
        seed,
        points_between: u64::from(args.between),
        max_points: args.max_points as u64,
        from_open: from_open(profile),
        seconds: 0,
        smallest: Vec::new(),
    };
    let started = Instant::now();
    for round in rounds {
        let round_seed = seeds[(round - 1) as usize];
        let rec = record_round(profile, args.commits, round_seed, &[])?;
        if let Some(Err(e)) = rec.outcomes.iter().find(|o| o.is_err()) {
            return Err(CliError::CrashTest(format!(
                "a commit failed on the recording mount, with no fault injected: {e}"
            )));
        }
        let dir = rec.mount.mountpoint().to_path_buf();
        let states_before = run.states;
        let plan = PointPlan {
            between: args.between,
            from: if from_open(profile) {
                rec.log.mark_at(OPEN_NOTE).map_or(0, |i| i + 1)
            } else {
                0
            },
            most: args.max_points,
        };
        let found = explore(
            &rec.log,
            model,
            states_per_point,
            round_seed,
            plan,
            args.only_state,
            &dir,
            |dir, roots| check_state(profile, dir, &rec.backing, roots, round_seed),
            |states, violations| {
                if states % 100 == 0 {
                    eprintln!(
                        "crash-test {} {model}: round {round}, {} states, {} violations ({:.0} s)",
                        profile.name(),
                        states_before + states,
                        run.violations + violations,
                        started.elapsed().as_secs_f64()
                    );
                }
            },
        )
        .map_err(|e| CliError::CrashTest(format!("cannot write a crash state: {e}")))?;
        add_round(&mut run, &args, round, &found);
        eprintln!(
            "crash-test {} {model}: round {round} done: {} ops logged, {} crash points, {} states, {} violations so far ({:.0} s)",
            profile.name(),
            rec.log.ops.len(),
            found.crash_points,
            run.states,
            run.violations,
            started.elapsed().as_secs_f64()
        );
    }
    run.seconds = started.elapsed().as_secs();
    if let Some(out) = &args.out {
        if args.only_round.is_none() {
            write_models(out, |file| file.merge(run.clone()))?;
        }
    }
    println!("{}", model_summary(&run));
    Ok(())
}

/// Adds one round's exploration to the run, keeping the smallest violation of each kind.
fn add_round(run: &mut ModelRun, args: &CrashTestArgs, round: u64, found: &Exploration) {
    run.rounds += 1;
    run.crash_points += found.crash_points;
    run.states += found.states;
    run.roots_checked += found.marks_checked;
    run.violations += found.violations;
    for v in &found.smallest {
        let points = |s: &str| s.split(':').next().and_then(|p| p.parse::<usize>().ok());
        let known = run.smallest.iter_mut().find(|k| k.kind == v.failure.kind);
        if known
            .as_ref()
            .is_some_and(|k| points(&k.state) <= Some(v.id.point))
        {
            continue;
        }
        let entry = ModelViolation {
            kind: v.failure.kind.clone(),
            detail: v.failure.detail.clone(),
            round,
            state: v.id.to_string(),
            how: v.state.clone(),
            trace: v.trace.clone(),
            rerun: rerun_command(args, &run.model, run.seed, round, v.id),
        };
        match known {
            Some(k) => *k = entry,
            None => run.smallest.push(entry),
        }
    }
}

/// The one command that checks state `id` of round `round` again.
fn rerun_command(args: &CrashTestArgs, model: &str, seed: u64, round: u64, id: StateId) -> String {
    let cap = if args.max_points > 0 {
        format!(" --max-points {}", args.max_points)
    } else {
        String::new()
    };
    format!(
        "triebench crash-test --backend {} --power-loss --model {model} --seed {seed} --commits {} \
         --states-per-point {} --between {}{cap} --only-round {round} --only-state {id}",
        args.backend, args.commits, args.states_per_point, args.between
    )
}

/// The lines the command prints for a model run.
pub fn model_summary(run: &ModelRun) -> String {
    let mut out = format!(
        "{} (durability: {}), model {}: {} rounds of {} commits, {} crash points ({} between two syncs at most per gap{}{}), {} states explored, {} acknowledged roots checked, {} violations, {} s",
        run.profile,
        run.promised,
        run.model,
        run.rounds,
        run.commits_per_round,
        run.crash_points,
        run.points_between,
        if run.max_points > 0 {
            format!(", a sample of at most {} per round", run.max_points)
        } else {
            String::new()
        },
        if run.from_open {
            ", from the open store on"
        } else {
            ""
        },
        run.states,
        run.roots_checked,
        run.violations,
        run.seconds
    );
    for v in &run.smallest {
        out.push_str(&format!(
            "\n  {}: {} (round {}, state {}: {})\n    trace: {}\n    rerun: {}",
            v.kind,
            v.detail,
            v.round,
            v.state,
            v.how,
            v.trace.join(" | "),
            v.rerun
        ));
    }
    out
}

/// `--fsync-eio`: fail one fsync in the middle of a workload and see what the store does.
fn run_fsync_eio(args: &CrashTestArgs, profile: Profile, seed: u64) -> Result<(), CliError> {
    let round_seed = round_seeds(seed, 1)[0];
    let commits = args.commits.max(4);
    // A dry run counts the fsync-family calls and finds the first one after half the commits.
    let dry = record_round(profile, commits, round_seed, &[])?;
    let mut fsyncs = 0u64;
    let mut marks = 0u64;
    let mut nth = None;
    for op in &dry.log.ops {
        match op {
            LogOp::Mark { label } if label != OPEN_NOTE => marks += 1,
            LogOp::Mark { .. } => {}
            op if op.is_fsync_call() => {
                fsyncs += 1;
                if marks >= commits / 2 && nth.is_none() {
                    nth = Some(fsyncs);
                }
            }
            _ => {}
        }
    }
    drop(dry);
    let nth = nth.ok_or_else(|| {
        CliError::CrashTest(format!(
            "{}: no fsync after half the commits; nothing to fail",
            profile.name()
        ))
    })?;
    let flag = nth.to_string();
    let rec = record_round(profile, commits, round_seed, &["--fail-fsync", &flag])?;
    let failed_at = rec
        .log
        .ops
        .iter()
        .position(|op| matches!(op, LogOp::FsyncFailed { .. } | LogOp::Fault { .. }));
    // The commit running when the fsync failed: the one after the marks logged before it.
    let marks_before = failed_at.map_or(0, |i| rec.log.marks_before(i).len());
    let first_error = rec.outcomes.iter().position(Result::is_err);
    let commit_reported_failure = first_error == Some(marks_before);
    let after = first_error.map_or(marks_before + 1, |e| e + 1);
    let refused_after = rec
        .outcomes
        .iter()
        .skip(after)
        .filter(|o| o.is_err())
        .count() as u64;
    let acknowledged_after = rec
        .outcomes
        .iter()
        .skip(after)
        .filter(|o| o.is_ok())
        .count() as u64;
    // Crash states after the failure (clean cut: only what the failed fsync lost is lost).
    let dir = rec.mount.mountpoint().to_path_buf();
    let mut states = 0;
    let mut lost = 0u64;
    let mut first_loss = None;
    if let Some(failed) = failed_at {
        let points: Vec<usize> = triebench_slowfs::model::crash_points(&rec.log)
            .into_iter()
            .filter(|&p| p > failed)
            .collect();
        for point in points {
            let found = explore(
                &rec.log,
                CrashModel::Clean,
                1,
                round_seed,
                PointPlan::default(),
                Some(StateId { point, sample: 0 }),
                &dir,
                |dir, roots| check_state(profile, dir, &rec.backing, roots, round_seed),
                |_, _| {},
            )
            .map_err(|e| CliError::CrashTest(format!("cannot write a crash state: {e}")))?;
            states += found.states;
            if let Some(v) = found.smallest.first() {
                lost += 1;
                first_loss.get_or_insert_with(|| {
                    format!(
                        "crash after {} ops: {}: {}",
                        point, v.failure.kind, v.failure.detail
                    )
                });
            }
        }
    }
    let run = FsyncEioRun {
        profile: profile.name().to_string(),
        failed_fsync: nth,
        commits,
        commit_reported_failure,
        error: first_error.and_then(|i| rec.outcomes[i].clone().err()),
        refused_after,
        acknowledged_after,
        acknowledged_lost: lost,
        states,
        first_loss,
    };
    println!("{}", eio_summary(&run));
    if let Some(out) = &args.out {
        write_models(out, |file| file.merge_eio(run.clone()))?;
    }
    Ok(())
}

/// The line the command prints for an fsync-EIO run.
pub fn eio_summary(run: &FsyncEioRun) -> String {
    format!(
        "{}: fsync #{} of {} commits failed with EIO; the commit {}; afterwards {} commits refused, {} acknowledged; crash states after it with an acknowledged root lost: {} of {}{}",
        run.profile,
        run.failed_fsync,
        run.commits,
        match (&run.error, run.commit_reported_failure) {
            (Some(e), true) => format!("reported the failure ({e})"),
            (Some(e), false) => format!("succeeded, a later one failed ({e})"),
            (None, _) => "succeeded (the failure was not reported)".to_string(),
        },
        run.refused_after,
        run.acknowledged_after,
        run.acknowledged_lost,
        run.states,
        run.first_loss
            .as_ref()
            .map(|l| format!("; first: {l}"))
            .unwrap_or_default()
    )
}

fn read_models_file(path: &Path) -> Result<CrashModelsFile, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            CliError::CrashTest(format!(
                "{} is not a crash-models file this version can add to ({e}); move it away or \
                 choose another --out",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CrashModelsFile::default()),
        Err(e) => Err(CliError::CrashTest(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Merges into DIR/crash-models.json, rewrites DIR/crash-models.md and DIR/env.json.
fn write_models(dir: &Path, add: impl FnOnce(&mut CrashModelsFile)) -> Result<(), CliError> {
    let fail = |e: String| CliError::CrashTest(format!("cannot write {}: {e}", dir.display()));
    let path = dir.join(CRASH_MODELS_FILE);
    let mut file = read_models_file(&path)?;
    add(&mut file);
    let text = serde_json::to_string_pretty(&file).map_err(|e| fail(e.to_string()))?;
    write_atomically(&path, (text + "\n").as_bytes()).map_err(|e| fail(e.to_string()))?;
    write_atomically(&dir.join("crash-models.md"), models_table(&file).as_bytes())
        .map_err(|e| fail(e.to_string()))?;
    write_env(dir)
}

/// The markdown table of a crash-models file: states and violations per profile and model,
/// then the fsync-EIO answers.
pub fn models_table(file: &CrashModelsFile) -> String {
    let mut out = String::from(
        "# Crash states explored per profile and model\n\n\
         | profile | model | rounds × commits | crash points | states | roots checked | violations | smallest violation |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in &file.runs {
        let smallest = r
            .smallest
            .iter()
            .map(|v| format!("{} (round {}, state {})", v.kind, v.round, v.state))
            .collect::<Vec<_>>()
            .join("; ");
        out.push_str(&format!(
            "| {} | {} | {} × {} | {} | {} | {} | {} | {} |\n",
            r.profile,
            r.model,
            r.rounds,
            r.commits_per_round,
            r.crash_points,
            r.states,
            r.roots_checked,
            r.violations,
            if smallest.is_empty() {
                "-".into()
            } else {
                smallest
            }
        ));
    }
    if !file.fsync_eio.is_empty() {
        out.push_str("\n# fsync EIO\n\n");
        for r in &file.fsync_eio {
            out.push_str(&format!("- {}\n", eio_summary(r)));
        }
    }
    out
}
