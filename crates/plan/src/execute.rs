//! Runs a [`Plan`]: each step through the command's own entry point, in this process (criterion's
//! benches excepted: `cargo bench`), each in a fresh directory on its filesystem, each timed.
//!
//! A step prints one line as it starts and one with its time as it ends (the long ones print
//! their own progress between); a load search that fails is reported and the plan goes on (the
//! report shows it as not run), as does nothing else: any other failure, or Ctrl-C, stops it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use triebench_record::layout::{
    cpu_idle_path, engines_path, field_dir, grow_dir, io_profile_path, phases_path, records_dir,
};
use triebench_report::read::load_runs::load_dir;
use triebench_smallbank::{Family, SmallbankOptions, TransactStore};

use crate::criterion_route::{bench_env, cargo, cargo_args};
use crate::describe::{
    build_label, export_label, io_profile_label, load_label, report_label, run_step_label,
};
use crate::error::PlanError;
use crate::export_run::{export_run, ExportRun};
use crate::step::capture_fs::{capture_fs, CaptureFsOptions};
use crate::step::engines::{engines, EnginesOptions};
use crate::step::field::{field, FieldOptions};
use crate::step::grow::{grow, GrowOptions};
use crate::step::headline::{headline, HeadlineOptions};
use crate::step::io_profile::{io_profile, IoProfileOptions};
use crate::step::load::LoadOptions;
use crate::step::phases::{phases, PhasesOptions};
use crate::step::report::{report, ReportOptions};
use crate::step::smallbank::{smallbank, SmallbankStepOptions};
use crate::steps::{LoadStep, Plan, RunStep, SMALLBANK};

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
        step: impl FnOnce() -> Result<Result<(), String>, PlanError>,
    ) -> Result<(), PlanError> {
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
pub fn execute(plan: &Plan, cx: &Context) -> Result<Vec<StepTime>, PlanError> {
    let mut progress = Progress {
        total: plan.step_count(),
        times: Vec::new(),
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
            io_profile(&IoProfileOptions {
                dir: dir.clone(),
                profiles: plan.profiles.clone(),
                out: io_profile_path(&cx.criterion_dir),
                flamegraph: None,
            })?;
            Ok(Ok(()))
        })?;
    }
    progress.step(report_label(&plan.report), || {
        report(&ReportOptions {
            baseline: Some(plan.report.baseline.clone()),
            runs: plan.report.runs.clone(),
            out: plan.report.out.clone(),
            criterion_dir: Some(cx.criterion_dir.clone()),
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
) -> Result<(), PlanError> {
    match step {
        RunStep::CaptureFs => capture_fs(&CaptureFsOptions {
            name: name.to_string(),
            dir: work.to_path_buf(),
            criterion_dir: cx.criterion_dir.clone(),
            latency: true,
        }),
        RunStep::Headline {
            budget_secs,
            max_rounds,
        } => {
            headline(&HeadlineOptions {
                dir: work.to_path_buf(),
                run: name.to_string(),
                profiles: plan.profiles.clone(),
                criterion_dir: cx.criterion_dir.clone(),
                budget: *budget_secs,
                max_rounds: *max_rounds,
                cpu_idle: plan.cpu_idle,
                net: None,
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
                PlanError::Usage("the plan runs criterion without its options".into())
            })?;
            Ok(cargo(
                checkout(cx)?,
                &cargo_args(c, Some(name)),
                &bench_env(plan, c, &cx.criterion_dir, work),
            )?)
        }
        RunStep::Phases => {
            phases(&PhasesOptions {
                dir: work.to_path_buf(),
                run: name.to_string(),
                profiles: plan.profiles.clone(),
                out: phases_path(&cx.criterion_dir, name),
                flamegraph: None,
                cpu_idle: plan.cpu_idle,
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
                let outcome = grow(&GrowOptions {
                    backend: profile.clone(),
                    dir: Some(store.clone()),
                    max_leaves: *max_leaves,
                    memory: None,
                    fill_batch: triebench_measure::grow_run::FILL_BATCH,
                    commits: *commits,
                    reads: *reads,
                    seed: GROW_SEED,
                    out: Some(curves.join(profile)),
                    net: None,
                    cgroup_dir: None,
                    fill_floor: None,
                    fill_floor_trie_order_only: false,
                    compact_after_fill: false,
                });
                remove_dir(&store)?;
                outcome?;
            }
            Ok(())
        }
        RunStep::ForgetGrow => remove_dir(&grow_dir(&cx.criterion_dir, name)),
        RunStep::Engines {
            engines: names,
            profiles,
            leaves,
            reads,
        } => {
            let out = engines_path(&cx.criterion_dir, name);
            remove_file(&out)?;
            engines(&EnginesOptions {
                engines: names.clone(),
                profiles: profiles.clone(),
                dir: Some(work.join("engines")),
                fill_leaves: *leaves,
                fill_batch: ENGINES_FILL_BATCH,
                reads: *reads,
                seed: GROW_SEED,
                field: Vec::new(),
                field_scale: 1,
                out: Some(out),
                beside: false,
            })?;
            remove_dir(&work.join("engines"))
        }
        RunStep::ForgetEngines => remove_file(&engines_path(&cx.criterion_dir, name)),
        RunStep::Field {
            workloads,
            profiles,
            size,
        } => {
            let records = field_dir(&cx.criterion_dir, name);
            remove_dir(&records)?;
            for profile in profiles {
                for workload in workloads {
                    let store = work.join(format!("field-{profile}-{workload}"));
                    let record = Some(records.join(format!("{profile}-{workload}.json")));
                    let outcome = if workload == SMALLBANK {
                        smallbank(&SmallbankStepOptions {
                            run: SmallbankOptions {
                                family: Family::Smallbank,
                                profile: profile.clone(),
                                dir: Some(store.clone()),
                                accounts: SMALLBANK_ACCOUNTS,
                                transactions: size.smallbank_transactions,
                                block_size: SMALLBANK_BLOCK,
                                seed: FIELD_SEED,
                                trace: None,
                                transact: TransactStore::Memory,
                            },
                            out: None,
                            run_record: record,
                        })
                        .map(drop)
                    } else {
                        field(&FieldOptions {
                            workload: workload.clone(),
                            profile: profile.clone(),
                            dir: Some(store.clone()),
                            scale: size.scale,
                            seed: FIELD_SEED,
                            out: None,
                            run_record: record,
                            // Merk's own code is `triebench field`'s (a runner built apart).
                            merk_runner: None,
                        })
                        .map(drop)
                    };
                    remove_dir(&store)?;
                    outcome?;
                }
            }
            Ok(())
        }
        RunStep::ForgetField => remove_dir(&field_dir(&cx.criterion_dir, name)),
    }
}

/// Seed of the main job's field workloads and SmallBank playlist (their commands' default).
const FIELD_SEED: u64 = 1;

/// SmallBank's accounts in the main job (`triebench smallbank`'s default).
const SMALLBANK_ACCOUNTS: u64 = 1_000;

/// SmallBank's transactions per block in the main job (`triebench smallbank`'s default).
const SMALLBANK_BLOCK: u64 = 100;

/// Leaves per fill commit of the main job's engines run.
const ENGINES_FILL_BATCH: u64 = 1_000;

/// Seed of the main job's growth curves (`grow --seed`'s default): the same state on every
/// filesystem.
const GROW_SEED: u64 = 7;

/// One load search, into the load folder the report reads; a failure is the step's outcome
/// (the report shows the profile as not run), Ctrl-C stops the plan.
fn run_load(plan: &Plan, load: &LoadStep, cx: &Context) -> Result<Result<(), String>, PlanError> {
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
        std::fs::remove_dir_all(&out).map_err(|source| PlanError::Write {
            path: out.clone(),
            source,
        })?;
    }
    let options = LoadOptions {
        backend: load.profile.clone(),
        dir: Some(work.path().join("store")),
        saturate: true,
        state_size: load.options.state_size,
        readers: vec![load.options.readers],
        duration: Some(load.step),
        budget: load.budget,
        cpu_idle: plan.cpu_idle,
        out,
        ..LoadOptions::default()
    };
    match crate::step::load::load(&options) {
        Ok(()) => Ok(Ok(())),
        Err(e @ PlanError::Interrupted(_)) => Err(e),
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// The checkout, which criterion's benches need.
fn checkout(cx: &Context) -> Result<&Path, PlanError> {
    cx.checkout
        .as_deref()
        .ok_or_else(|| PlanError::NoCheckout(crate::checkout::built_from()))
}

/// Removes `path` if it is there.
fn remove_file(path: &Path) -> Result<(), PlanError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(PlanError::Write {
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
fn remove_dir(path: &Path) -> Result<(), PlanError> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(PlanError::Write {
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
