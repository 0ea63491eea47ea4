//! Runs a [`Plan`]: each step through the command's own entry point, in this process (criterion's
//! benches excepted: `cargo bench`), each in a fresh directory on its filesystem, each timed.
//!
//! A step prints one line as it starts and one with its time as it ends (the long ones print
//! their own progress between); a load search that fails is reported and the plan goes on (the
//! report shows it as not run), as does nothing else: any other failure, or Ctrl-C, stops it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use triebench_record::layout::{cpu_idle_path, grow_dir, phases_path, records_dir};
use triebench_report::read::load_runs::load_dir;

use crate::commands::capture_fs::{run_capture_fs, CaptureFsArgs};
use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::commands::grow::{run_grow, GrowArgs};
use crate::commands::headline::{run_headline, HeadlineArgs};
use crate::commands::io_profile::{run_io_profile, IoProfileArgs};
use crate::commands::load::{run_load_command, LoadArgs};
use crate::commands::phases::{run_phases, PhasesArgs};
use crate::commands::report::{run_report, ReportCliArgs};
use crate::error::CliError;
use crate::plan::criterion_route::{bench_env, cargo, cargo_args};
use crate::plan::describe::{
    build_label, export_label, io_profile_label, load_label, report_label, run_step_label,
};
use crate::plan::error::PlanError;
use crate::plan::export::{export_run, ExportRun};
use crate::plan::steps::{LoadStep, Plan, RunStep};

/// How one step went.
#[derive(Debug, Clone)]
pub struct StepTime {
    /// The step, as the plan described it.
    pub label: String,
    /// How long it took.
    pub elapsed: Duration,
    /// Why it failed, for a step the plan goes on after (a load search).
    pub failed: Option<String>,
}

/// Where the plan writes and who it is.
#[derive(Debug, Clone)]
pub struct Context {
    /// Criterion's output directory: every step's results, read by the report.
    pub criterion_dir: PathBuf,
    /// The checkout criterion's benches are built in (needed when they run).
    pub checkout: Option<PathBuf>,
    /// The host name run folders carry.
    pub host: String,
}

/// Counts and times the steps.
struct Progress {
    total: usize,
    times: Vec<StepTime>,
}

impl Progress {
    /// Runs `step`, printing its start and its time; `Ok(Err(reason))` is a failure the plan
    /// goes on after.
    fn step(
        &mut self,
        label: String,
        step: impl FnOnce() -> Result<Result<(), String>, CliError>,
    ) -> Result<(), CliError> {
        let n = self.times.len() + 1;
        eprintln!("bench: [{n}/{}] {label}", self.total);
        let start = Instant::now();
        let outcome = step()?;
        let elapsed = start.elapsed();
        match &outcome {
            Ok(()) => eprintln!(
                "bench: [{n}/{}] took {:.1} s",
                self.total,
                elapsed.as_secs_f64()
            ),
            Err(why) => eprintln!(
                "bench: [{n}/{}] failed after {:.1} s, going on: {why}",
                self.total,
                elapsed.as_secs_f64()
            ),
        }
        self.times.push(StepTime {
            label,
            elapsed,
            failed: outcome.err(),
        });
        Ok(())
    }
}

/// Runs every step of `plan` in order; returns the time of each.
pub fn execute(plan: &Plan, cx: &Context) -> Result<Vec<StepTime>, CliError> {
    let mut progress = Progress {
        total: plan.step_count(),
        times: Vec::new(),
    };
    let dir_arg = || CriterionDirArg {
        criterion_dir: Some(cx.criterion_dir.clone()),
    };
    if let Some(c) = &plan.criterion {
        let checkout = checkout(cx)?;
        progress.step(build_label(c), || {
            Ok(Ok(cargo(checkout, &cargo_args(c, None), &[])?))
        })?;
    }
    for run in &plan.runs {
        // Removed (with what the steps left in it) when the run's last step is done.
        let work_dir = tempfile::Builder::new()
            .prefix("triebench-run.")
            .tempdir_in(&run.run.dir)
            .map_err(|source| PlanError::RunDir {
                name: run.run.name.clone(),
                dir: run.run.dir.clone(),
                source,
            })?;
        eprintln!(
            "bench: run '{}' in {} (scale {})",
            run.run.name,
            work_dir.path().display(),
            plan.scale
        );
        for step in &run.steps {
            progress.step(run_step_label(plan, &run.run, step), || {
                run_step(plan, cx, &run.run.name, work_dir.path(), step)?;
                Ok(Ok(()))
            })?;
        }
    }
    for load in &plan.loads {
        progress.step(load_label(load), || run_load(plan, load, cx))?;
    }
    if let Some(dir) = &plan.io_profile {
        progress.step(io_profile_label(plan, dir), || {
            run_io_profile(IoProfileArgs {
                dir: dir.clone(),
                profiles: plan.profiles.clone(),
                out: None,
                criterion: dir_arg(),
                flamegraph: None,
            })?;
            Ok(Ok(()))
        })?;
    }
    progress.step(report_label(&plan.report), || {
        run_report(ReportCliArgs {
            baseline: Some(plan.report.baseline.clone()),
            runs: plan.report.runs.clone(),
            out: plan.report.out.clone(),
            criterion: dir_arg(),
            label: None,
        })?;
        Ok(Ok(()))
    })?;
    for export in &plan.exports {
        progress.step(export_label(export), || {
            let folder = export_run(&ExportRun {
                run: &export.run,
                criterion_dir: &cx.criterion_dir,
                parent: &export.parent,
                host: &cx.host,
                scale: plan.scale.name(),
            })?;
            println!("run folder written to {}", folder.display());
            Ok(Ok(()))
        })?;
    }
    Ok(progress.times)
}

/// One step on run `name`, in its fresh directory `work`.
fn run_step(
    plan: &Plan,
    cx: &Context,
    name: &str,
    work: &Path,
    step: &RunStep,
) -> Result<(), CliError> {
    let dir_arg = || CriterionDirArg {
        criterion_dir: Some(cx.criterion_dir.clone()),
    };
    match step {
        RunStep::CaptureFs => run_capture_fs(CaptureFsArgs {
            name: name.to_string(),
            dir: work.to_path_buf(),
            criterion: dir_arg(),
            no_latency: false,
        }),
        RunStep::Headline {
            budget_secs,
            max_rounds,
        } => {
            run_headline(HeadlineArgs {
                dir: work.to_path_buf(),
                run: name.to_string(),
                profiles: plan.profiles.clone(),
                criterion: dir_arg(),
                budget: *budget_secs,
                max_rounds: *max_rounds,
                cpu_idle: plan.cpu_idle,
                net: Default::default(),
            })?;
            forget_listeners();
            Ok(())
        }
        RunStep::ForgetHeadline => {
            remove_file(&cpu_idle_path(&cx.criterion_dir, name))?;
            remove_dir(&records_dir(&cx.criterion_dir, name))
        }
        RunStep::Criterion => {
            let c = plan.criterion.as_ref().ok_or_else(|| {
                CliError::Usage("the plan runs criterion without its options".into())
            })?;
            Ok(cargo(
                checkout(cx)?,
                &cargo_args(c, Some(name)),
                &bench_env(plan, c, &cx.criterion_dir, work),
            )?)
        }
        RunStep::Phases => {
            run_phases(PhasesArgs {
                dir: work.to_path_buf(),
                run: name.to_string(),
                profiles: plan.profiles.clone(),
                out: None,
                criterion: dir_arg(),
                flamegraph: None,
                cpu_idle: plan.cpu_idle,
                net: Default::default(),
            })?;
            forget_listeners();
            Ok(())
        }
        RunStep::ForgetPhases => remove_file(&phases_path(&cx.criterion_dir, name)),
        RunStep::Grow {
            profiles,
            max_leaves,
            commits,
            reads,
        } => {
            let curves = grow_dir(&cx.criterion_dir, name);
            remove_dir(&curves)?;
            for profile in profiles {
                // A store of 10^6 leaves takes gigabytes: each goes as soon as its curve is done.
                let store = work.join(format!("grow-{profile}"));
                let outcome = run_grow(GrowArgs {
                    backend: profile.clone(),
                    dir: Some(store.clone()),
                    max_leaves: *max_leaves,
                    memory: None,
                    fill_batch: triebench_measure::grow_run::FILL_BATCH,
                    commits: *commits,
                    reads: *reads,
                    seed: GROW_SEED,
                    out: Some(curves.join(profile)),
                    net: Default::default(),
                });
                remove_dir(&store)?;
                outcome?;
            }
            Ok(())
        }
        RunStep::ForgetGrow => remove_dir(&grow_dir(&cx.criterion_dir, name)),
    }
}

/// Seed of the main job's growth curves (`grow --seed`'s default): the same state on every
/// filesystem.
const GROW_SEED: u64 = 7;

/// One load search, into the load folder the report reads; a failure is the step's outcome
/// (the report shows the profile as not run), Ctrl-C stops the plan.
fn run_load(plan: &Plan, load: &LoadStep, cx: &Context) -> Result<Result<(), String>, CliError> {
    let work = tempfile::Builder::new()
        .prefix("triebench-load.")
        .tempdir_in(&load.run.dir)
        .map_err(|source| PlanError::RunDir {
            name: load.run.name.clone(),
            dir: load.run.dir.clone(),
            source,
        })?;
    let out = load_dir(&cx.criterion_dir, &load.run.name, &load.profile);
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|source| CliError::Input {
            path: out.clone(),
            source,
        })?;
    }
    // Parsed as the command line would be, so every setting not named here keeps the
    // command's own default.
    let args = LoadCli::try_parse_from([
        "load".into(),
        "--backend".into(),
        load.profile.clone(),
        "--dir".into(),
        work.path().join("store").display().to_string(),
        "--saturate".into(),
        "--state-size".into(),
        load.options.state_size.to_string(),
        "--readers".into(),
        load.options.readers.to_string(),
        "--duration".into(),
        format!("{}s", load.step.as_secs_f64()),
        "--budget".into(),
        format!("{}s", load.budget.as_secs_f64()),
        "--cpu-idle".into(),
        plan.cpu_idle.name().to_string(),
        "--out".into(),
        out.display().to_string(),
    ])
    .map_err(|e| CliError::Usage(format!("load: {e}")))?
    .args;
    match run_load_command(args) {
        Ok(()) => Ok(Ok(())),
        Err(e @ CliError::Interrupted(_)) => Err(e),
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// `triebench load`'s arguments alone, to parse them.
#[derive(Debug, Parser)]
struct LoadCli {
    #[command(flatten)]
    args: LoadArgs,
}

/// The checkout, which criterion's benches need.
fn checkout(cx: &Context) -> Result<&Path, PlanError> {
    cx.checkout
        .as_deref()
        .ok_or_else(|| PlanError::NoCheckout(crate::plan::checkout::built_from()))
}

/// Removes `path` if it is there.
fn remove_file(path: &Path) -> Result<(), CliError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(CliError::Input {
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Once the phase collector has listened, every phase span in this process keeps costing what
/// a listened-to span costs (tracing caches each call site's interest): the next filesystem's
/// headline would time the trie with dearer spans than a fresh process does (bench-fs.sh started
/// one per step). Its `phases/span/no-subscriber` floor read 210-270 ns against 45-65 ns in a
/// debug build, on the second of two runs. Re-asking the call sites, now that no collector is
/// left, turns them back off: the second run then reads as the first.
fn forget_listeners() {
    tracing_core::callsite::rebuild_interest_cache();
}

/// Removes the directory `path` and what it holds, if it is there.
fn remove_dir(path: &Path) -> Result<(), CliError> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(CliError::Input {
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// The closing table: each step's time, then the total.
pub fn times_table(times: &[StepTime]) -> String {
    let mut out = String::from("bench: time per step\n");
    for (i, t) in times.iter().enumerate() {
        out.push_str(&format!(
            "  [{}] {:>8.1} s  {}{}\n",
            i + 1,
            t.elapsed.as_secs_f64(),
            t.label,
            t.failed
                .as_ref()
                .map(|why| format!(" (failed: {why})"))
                .unwrap_or_default()
        ));
    }
    let total: Duration = times.iter().map(|t| t.elapsed).sum();
    out.push_str(&format!("  total {:.1} s", total.as_secs_f64()));
    out
}
