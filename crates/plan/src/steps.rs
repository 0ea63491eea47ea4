//! The plan itself: [`plan`] turns the options of `triebench bench` into the steps it will run,
//! per scale, without touching anything (a pure function, tested below).
//!
//! Per filesystem: `capture-fs`; the headline (`triebench headline`, or criterion's benches);
//! criterion when it has something to measure; the phase breakdown. Then the load search per
//! profile and filesystem (`--load`), the I/O profile on the slowfs counting mount, the report,
//! and a run folder per filesystem.

use std::path::PathBuf;
use std::time::Duration;

use triebench_record::CpuIdle;
use triebench_workloads::field::FIELD_WORKLOADS;

use crate::run_spec::RunSpec;
use crate::scale::{FieldSize, Scale};

/// Which criterion groups run beside the headline's (`--groups`; the benches'
/// `TRIEBENCH_GROUPS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Groups {
    /// The headline's groups only (`scenario/`, `floor/`).
    Headline,
    /// Also the scalable groups (`scale/`) and raw backend operations (`kv/`).
    All,
}

impl Groups {
    /// The name `--groups` and `TRIEBENCH_GROUPS` use.
    pub fn name(self) -> &'static str {
        match self {
            Groups::Headline => "headline",
            Groups::All => "all",
        }
    }
}

/// Criterion's benches: what the user asked (`--features`, `--benches`, ...), and in a
/// [`Plan`] what its one `cargo bench` build runs, the `--no-run` step and every run alike (the
/// filter then resolved: `None` is what the benches run by default at this scale).
#[derive(Debug, Clone, PartialEq)]
pub struct CriterionOptions {
    /// Cargo features of the benches' build (`--features`).
    pub features: String,
    /// The bench targets (`--benches`).
    pub benches: Vec<String>,
    /// Criterion's filter regex (`--filter`).
    pub filter: Option<String>,
    /// `--groups`, when given.
    pub groups: Option<Groups>,
    /// Samples per benchmark (`--samples`), when given.
    pub samples: Option<u32>,
    /// Whether criterion draws its HTML plots (`--plots`).
    pub plots: bool,
}

/// The growth curves asked for (`--grow-max`, `--grow-profiles`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GrowChoice {
    /// Leaves at the last checkpoint (`--grow-max`; 0: no curve); `None`: the scale's.
    pub max_leaves: Option<u64>,
    /// Profiles to grow (`--grow-profiles`); empty: [`DEFAULT_GROW_PROFILES`] among those
    /// measured.
    pub profiles: Vec<String>,
}

/// The profiles the main job grows by default: one per engine that keeps its data in files
/// (the durable setting of each), so that a cold read misses a real page cache.
pub const DEFAULT_GROW_PROFILES: [&str; 3] = ["lmdb", "sqlite-wal-full", "postgres"];

/// Timed commits and reads per checkpoint of a curve to at most 10^5 leaves (`grow --commits`,
/// `--reads`): fewer than `grow`'s own defaults, to keep the main job short.
pub const SHORT_GROW_SAMPLES: (u64, u64) = (50, 300);

/// The engines the main job runs side by side.
pub const DEFAULT_ENGINES: [&str; 5] = ["trie", "jmt", "mpt", "transact", "nomt"];

/// The profiles the main job runs the engines on, among those built in and measured: the
/// in-memory store (nearly the engine's own cost) and the default growth profiles.
pub const DEFAULT_ENGINE_PROFILES: [&str; 4] = ["btree", "lmdb", "sqlite-wal-full", "postgres"];

/// Leaves of the main job's engines fill (after `update`'s 950): small, the short version of
/// `triebench engines`.
pub const SHORT_ENGINE_LEAVES: (u64, u64) = (1_000, 10_000);

/// The field step's workloads by default: every field workload (`FIELD_WORKLOADS`, so one
/// added there runs here too), then SmallBank.
pub fn default_field_workloads() -> Vec<String> {
    FIELD_WORKLOADS
        .iter()
        .map(|w| w.name().to_string())
        .chain(std::iter::once(SMALLBANK.to_string()))
        .collect()
}

/// The field step's name for SmallBank end to end (`triebench smallbank`).
pub const SMALLBANK: &str = "smallbank";

/// The profiles the field step runs on by default, among those built in and measured: one per
/// file-backed engine, their durable settings (PostgreSQL's server adds minutes here).
pub const DEFAULT_FIELD_PROFILES: [&str; 2] = ["lmdb", "sqlite-wal-full"];

/// Where run folders go by default.
pub const DEFAULT_EXPORT: &str = "runs";

/// `--criterion[=BOOL]`, or TRIEBENCH_HEADLINE's `criterion`/`runs`.
pub fn parse_criterion(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "criterion" | "true" | "yes" | "on" | "1" => Ok(true),
        "runs" | "false" | "no" | "off" | "0" => Ok(false),
        _ => Err(format!(
            "`{text}`: use true or false (TRIEBENCH_HEADLINE: criterion or runs)"
        )),
    }
}

/// The load search's size (`--load-state`, `--load-readers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Leaves preloaded.
    pub state_size: u64,
    /// Reader threads.
    pub readers: usize,
}

/// Everything `triebench bench` was asked, resolved (the runs and the I/O mount found).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The run size.
    pub scale: Scale,
    /// The filesystems, the baseline first.
    pub runs: Vec<RunSpec>,
    /// Backend profiles (empty: every profile built in).
    pub profiles: Vec<String>,
    /// `--phases`/`--no-phases`, when given.
    pub phases: Option<bool>,
    /// `--criterion`: `Some(true)` measures the headline with criterion, `Some(false)` with
    /// `triebench headline`; `None` decides by `--filter`.
    pub criterion_headline: Option<bool>,
    /// Criterion's options.
    pub criterion: CriterionOptions,
    /// The load search, when asked for.
    pub load: Option<LoadOptions>,
    /// The growth curves asked for.
    pub grow: GrowChoice,
    /// The slowfs counting mount, when there is one.
    pub iolab: Option<PathBuf>,
    /// The engines the engines step runs (`--engines`): `None`, [`DEFAULT_ENGINES`]; an empty
    /// list, no engines step (an earlier record of the run is forgotten).
    pub engines: Option<Vec<String>>,
    /// The field step's workloads (`--field`: the field's workload names and `smallbank`):
    /// `None`, [`default_field_workloads`] at the scales that run the step; an empty list, no
    /// field step.
    pub field: Option<Vec<String>>,
    /// What idle CPUs do while measuring.
    pub cpu_idle: CpuIdle,
    /// The report folder (`None`: the report's default under `results/`).
    pub out: Option<PathBuf>,
    /// Where run folders go (`None`: no export).
    pub export: Option<PathBuf>,
}

/// One step on one filesystem, in a fresh directory on it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStep {
    /// `triebench capture-fs`: the filesystem and its cost per operation class.
    CaptureFs,
    /// `triebench headline` with this budget and these rounds.
    Headline {
        /// Seconds per profile.
        budget_secs: f64,
        /// Most rounds per profile.
        max_rounds: usize,
    },
    /// Removes an earlier headline's CPU idle record and run record of this run (criterion
    /// measures the headline; the old files would be reported as this run's, and a run record
    /// wins over criterion's baseline of the same run).
    ForgetHeadline,
    /// `cargo bench -- --save-baseline NAME` with TMPDIR on the filesystem.
    Criterion,
    /// `triebench phases`.
    Phases,
    /// Removes an earlier phase breakdown of this run (phases are off; it would be reported as
    /// this run's).
    ForgetPhases,
    /// `triebench grow` of each profile to `max_leaves`, its store in the run's directory
    /// (removed after each curve), its curve where the report reads it.
    Grow {
        /// Profiles, one curve each.
        profiles: Vec<String>,
        /// Leaves at the last checkpoint.
        max_leaves: u64,
        /// Timed 1-key commits per checkpoint (`grow --commits`).
        commits: u64,
        /// Timed reads per checkpoint, warm and cold each (`grow --reads`).
        reads: u64,
    },
    /// Removes earlier growth curves of this run (no curve this time; they would be reported
    /// as this run's).
    ForgetGrow,
    /// `triebench engines`: each engine on each profile, its stores in the run's directory
    /// (removed once measured), the record where the report reads it.
    Engines {
        /// Engine names.
        engines: Vec<String>,
        /// Profiles.
        profiles: Vec<String>,
        /// Leaves of the growth fill after `update`.
        leaves: u64,
        /// Warm reads, cold reads and proofs, each.
        reads: u64,
    },
    /// Removes an earlier engines run of this run (no profile to run it on this time).
    ForgetEngines,
    /// The field's published workloads (`triebench field`) and SmallBank end to end
    /// (`triebench smallbank`) on each profile, each store fresh in the run's directory, their
    /// records where the report's "Against published figures" reads them.
    Field {
        /// Workload names: the field's, and `smallbank`.
        workloads: Vec<String>,
        /// Profiles, each workload on each.
        profiles: Vec<String>,
        /// The size.
        size: FieldSize,
    },
    /// Removes earlier field records of this run (no field step this time).
    ForgetField,
}

/// The steps on one filesystem.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// The filesystem.
    pub run: RunSpec,
    /// Its steps, in order.
    pub steps: Vec<RunStep>,
}

/// One `triebench load --saturate`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadStep {
    /// The filesystem.
    pub run: RunSpec,
    /// The profile.
    pub profile: String,
    /// Its size.
    pub options: LoadOptions,
    /// Length of each search step.
    pub step: Duration,
    /// Time limit of the search.
    pub budget: Duration,
}

/// The report over every run.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportStep {
    /// The run every slowdown is relative to.
    pub baseline: String,
    /// Every run, the baseline first.
    pub runs: Vec<String>,
    /// The report folder (`None`: `runs/reports/DATE-HOST-LABEL`).
    pub out: Option<PathBuf>,
}

/// One run folder.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportStep {
    /// The run.
    pub run: String,
    /// The directory the run folder goes in.
    pub parent: PathBuf,
}

/// Length of each step of the load search (`load --duration`).
pub const LOAD_STEP: Duration = Duration::from_secs(4);
/// Time limit of each load search (`load --budget`).
pub const LOAD_BUDGET: Duration = Duration::from_secs(60);

/// What `triebench bench` will do, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The run size.
    pub scale: Scale,
    /// Backend profiles for headline, phases and I/O profile (empty: every profile built in).
    pub profiles: Vec<String>,
    /// What idle CPUs do while measuring.
    pub cpu_idle: CpuIdle,
    /// Criterion's benches, when they run (built once first, then run per filesystem).
    pub criterion: Option<CriterionOptions>,
    /// The steps per filesystem.
    pub runs: Vec<RunPlan>,
    /// The load searches.
    pub loads: Vec<LoadStep>,
    /// The slowfs counting mount the I/O profile runs on.
    pub io_profile: Option<PathBuf>,
    /// The report.
    pub report: ReportStep,
    /// The run folders.
    pub exports: Vec<ExportStep>,
}

/// The plan for `options`; `enabled_profiles` are the profiles built in (the load searches'
/// profiles when `--profiles` is not given).
pub fn plan(options: &Options, enabled_profiles: &[String]) -> Plan {
    let settings = options.scale.settings();
    // A filter picks criterion benchmarks, the scenario groups included: criterion then
    // measures the headline too, unless --criterion=false says otherwise.
    let criterion_headline = options
        .criterion_headline
        .unwrap_or(options.criterion.filter.is_some());
    let criterion = criterion_run(options, settings.all_groups, criterion_headline);
    let phases = options.phases.unwrap_or(settings.phases);
    let grow = grow_step(options, settings.grow_max_leaves, enabled_profiles);
    let engines = engines_step(options, enabled_profiles);
    let field = field_step(options, settings.field, enabled_profiles);
    let runs = options
        .runs
        .iter()
        .map(|run| {
            let mut steps = vec![RunStep::CaptureFs];
            steps.push(if criterion_headline {
                RunStep::ForgetHeadline
            } else {
                RunStep::Headline {
                    budget_secs: settings.headline_budget_secs,
                    max_rounds: settings.headline_max_rounds,
                }
            });
            if criterion.is_some() {
                steps.push(RunStep::Criterion);
            }
            steps.push(if phases {
                RunStep::Phases
            } else {
                RunStep::ForgetPhases
            });
            steps.push(grow.clone().unwrap_or(RunStep::ForgetGrow));
            steps.push(engines.clone());
            steps.push(field.clone());
            RunPlan {
                run: run.clone(),
                steps,
            }
        })
        .collect();
    let load_profiles = if options.profiles.is_empty() {
        enabled_profiles
    } else {
        &options.profiles
    };
    let loads = options
        .load
        .map(|load| {
            options
                .runs
                .iter()
                .flat_map(|run| {
                    load_profiles.iter().map(move |profile| LoadStep {
                        run: run.clone(),
                        profile: profile.clone(),
                        options: load,
                        step: LOAD_STEP,
                        budget: LOAD_BUDGET,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let names: Vec<String> = options.runs.iter().map(|r| r.name.clone()).collect();
    let exports = options
        .export
        .as_ref()
        .map(|parent| {
            names
                .iter()
                .map(|run| ExportStep {
                    run: run.clone(),
                    parent: parent.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    Plan {
        scale: options.scale,
        profiles: options.profiles.clone(),
        cpu_idle: options.cpu_idle,
        criterion,
        runs,
        loads,
        io_profile: options.iolab.clone(),
        report: ReportStep {
            baseline: names.first().cloned().unwrap_or_default(),
            runs: names,
            out: options.out.clone(),
        },
        exports,
    }
}

/// The growth curves' step: `--grow-max` or the scale's size, on `--grow-profiles` or the
/// default ones that are built in and measured; `None` when there is nothing to grow.
fn grow_step(
    options: &Options,
    scale_max: Option<u64>,
    enabled_profiles: &[String],
) -> Option<RunStep> {
    let max_leaves = options.grow.max_leaves.or(scale_max).filter(|&n| n > 0)?;
    let profiles: Vec<String> = if options.grow.profiles.is_empty() {
        DEFAULT_GROW_PROFILES
            .iter()
            .map(|p| p.to_string())
            .filter(|p| enabled_profiles.contains(p))
            .filter(|p| options.profiles.is_empty() || options.profiles.contains(p))
            .collect()
    } else {
        options.grow.profiles.clone()
    };
    if profiles.is_empty() {
        return None;
    }
    let (commits, reads) = if max_leaves <= 100_000 {
        SHORT_GROW_SAMPLES
    } else {
        (200, 1000)
    };
    Some(RunStep::Grow {
        profiles,
        max_leaves,
        commits,
        reads,
    })
}

/// The engines step: the engines asked for ([`DEFAULT_ENGINES`] unless `--engines` named
/// others) on [`DEFAULT_ENGINE_PROFILES`] that are built in and measured (every `--profiles`
/// when given), at the short size for the scale; [`RunStep::ForgetEngines`] when no engine or
/// no profile is left.
fn engines_step(options: &Options, enabled_profiles: &[String]) -> RunStep {
    let engines: Vec<String> = match &options.engines {
        None => DEFAULT_ENGINES.iter().map(|e| e.to_string()).collect(),
        Some(engines) => engines.clone(),
    };
    let profiles = measured_or_defaults(options, &DEFAULT_ENGINE_PROFILES, enabled_profiles);
    if profiles.is_empty() || engines.is_empty() {
        return RunStep::ForgetEngines;
    }
    let leaves = if options.scale == Scale::Quick {
        SHORT_ENGINE_LEAVES.0
    } else {
        SHORT_ENGINE_LEAVES.1
    };
    RunStep::Engines {
        engines,
        profiles,
        leaves,
        reads: 100,
    }
}

/// A step's profiles: every `--profiles` given, else those of `defaults` that are built in.
fn measured_or_defaults(
    options: &Options,
    defaults: &[&str],
    enabled_profiles: &[String],
) -> Vec<String> {
    if options.profiles.is_empty() {
        defaults
            .iter()
            .map(|p| p.to_string())
            .filter(|p| enabled_profiles.contains(p))
            .collect()
    } else {
        options.profiles.clone()
    }
}

/// The field step: `--field`'s workloads, or [`default_field_workloads`] at a scale that runs
/// the step, on [`DEFAULT_FIELD_PROFILES`] that are built in and measured (every `--profiles`
/// when given); [`RunStep::ForgetField`] when no workload or profile is left.
fn field_step(options: &Options, size: Option<FieldSize>, enabled_profiles: &[String]) -> RunStep {
    let workloads: Vec<String> = match (&options.field, size) {
        (Some(workloads), _) => workloads.clone(),
        (None, Some(_)) => default_field_workloads(),
        (None, None) => Vec::new(),
    };
    let profiles = measured_or_defaults(options, &DEFAULT_FIELD_PROFILES, enabled_profiles);
    if workloads.is_empty() || profiles.is_empty() {
        return RunStep::ForgetField;
    }
    RunStep::Field {
        workloads,
        profiles,
        // `--field` at a scale without the step: the standard scale's size.
        size: size.unwrap_or(FieldSize::SHORT),
    }
}

/// Criterion's part: everything it selects when it measures the headline or a filter was given;
/// otherwise only what the headline leaves to it (the scalable and raw groups when asked for or
/// at full scale, Transact's stores when the `transact` bench is listed), or nothing (then it is
/// not even built).
fn criterion_run(
    options: &Options,
    scale_wants_all_groups: bool,
    criterion_headline: bool,
) -> Option<CriterionOptions> {
    let c = &options.criterion;
    let filter = if criterion_headline || c.filter.is_some() {
        c.filter.clone()
    } else {
        let mut groups = Vec::new();
        let all = match c.groups {
            Some(groups) => groups == Groups::All,
            None => scale_wants_all_groups,
        };
        if all {
            groups.push("^(kv|scale)/");
        }
        if c.benches.iter().any(|b| b == "transact") {
            groups.push("^scenario/[^/]+/transact-");
        }
        if groups.is_empty() {
            return None;
        }
        Some(groups.join("|"))
    };
    Some(CriterionOptions {
        filter,
        ..c.clone()
    })
}

impl Plan {
    /// How many steps the plan runs (building criterion's benches counted).
    pub fn step_count(&self) -> usize {
        usize::from(self.criterion.is_some())
            + self.runs.iter().map(|r| r.steps.len()).sum::<usize>()
            + self.loads.len()
            + usize::from(self.io_profile.is_some())
            + 1
            + self.exports.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(scale: Scale) -> Options {
        Options {
            scale,
            runs: vec![
                RunSpec {
                    name: "tmpfs".into(),
                    dir: "/dev/shm".into(),
                },
                RunSpec {
                    name: "disk".into(),
                    dir: "/repo/target/bench-disk".into(),
                },
            ],
            profiles: Vec::new(),
            phases: None,
            criterion_headline: None,
            criterion: CriterionOptions {
                features: "all-backends".into(),
                benches: vec!["merkle".into(), "kv".into(), "phases".into()],
                filter: None,
                groups: None,
                samples: None,
                plots: false,
            },
            load: None,
            grow: GrowChoice::default(),
            iolab: None,
            engines: None,
            field: None,
            cpu_idle: CpuIdle::Poll,
            out: None,
            export: Some("runs".into()),
        }
    }

    fn enabled() -> Vec<String> {
        vec!["btree".into(), "lmdb".into()]
    }

    fn headline(budget_secs: f64, max_rounds: usize) -> RunStep {
        RunStep::Headline {
            budget_secs,
            max_rounds,
        }
    }

    /// The engines step on the default engine profiles among [`enabled`].
    fn engines(leaves: u64) -> RunStep {
        RunStep::Engines {
            engines: vec![
                "trie".into(),
                "jmt".into(),
                "mpt".into(),
                "transact".into(),
                "nomt".into(),
            ],
            profiles: vec!["btree".into(), "lmdb".into()],
            leaves,
            reads: 100,
        }
    }

    /// The field step, every workload on lmdb (the one default field profile among
    /// [`enabled`]).
    fn field(scale: u64, smallbank_transactions: u64) -> RunStep {
        RunStep::Field {
            workloads: default_field_workloads(),
            profiles: vec!["lmdb".into()],
            size: FieldSize {
                scale,
                smallbank_transactions,
            },
        }
    }

    /// lmdb's curve (the one default grow profile among [`enabled`]).
    fn grow(max_leaves: u64, commits: u64, reads: u64) -> RunStep {
        RunStep::Grow {
            profiles: vec!["lmdb".into()],
            max_leaves,
            commits,
            reads,
        }
    }

    #[test]
    fn quick_takes_one_headline_round_and_skips_phases_and_criterion() {
        let plan = plan(&options(Scale::Quick), &enabled());
        assert_eq!(plan.criterion, None);
        for run in &plan.runs {
            assert_eq!(
                run.steps,
                [
                    RunStep::CaptureFs,
                    headline(1.0, 1),
                    RunStep::ForgetPhases,
                    RunStep::ForgetGrow,
                    engines(1_000),
                    RunStep::ForgetField
                ]
            );
        }
        assert_eq!(plan.report.baseline, "tmpfs");
        assert_eq!(plan.report.runs, ["tmpfs", "disk"]);
        assert_eq!(plan.exports.len(), 2);
        // Building nothing: 6 steps per run, the report, 2 exports.
        assert_eq!(plan.step_count(), 15);
    }

    #[test]
    fn standard_takes_five_seconds_of_rounds_the_phases_and_a_short_curve() {
        let plan = plan(&options(Scale::Standard), &enabled());
        assert_eq!(plan.criterion, None);
        for run in &plan.runs {
            assert_eq!(
                run.steps,
                [
                    RunStep::CaptureFs,
                    headline(5.0, 30),
                    RunStep::Phases,
                    grow(100_000, 50, 300),
                    engines(10_000),
                    field(1, 2_000)
                ]
            );
        }
    }

    #[test]
    fn grow_flags_override_the_scale_and_pick_the_profiles() {
        let mut o = options(Scale::Quick);
        o.grow.max_leaves = Some(10_000);
        assert_eq!(plan(&o, &enabled()).runs[0].steps[3], grow(10_000, 50, 300));
        o.grow.profiles = vec!["sqlite-wal".into(), "lmdb-async".into()];
        assert_eq!(
            plan(&o, &enabled()).runs[1].steps[3],
            RunStep::Grow {
                profiles: vec!["sqlite-wal".into(), "lmdb-async".into()],
                max_leaves: 10_000,
                commits: 50,
                reads: 300,
            }
        );
        let mut o = options(Scale::Full);
        o.grow.max_leaves = Some(0);
        assert_eq!(plan(&o, &enabled()).runs[0].steps[4], RunStep::ForgetGrow);
        // Only default grow profiles that are measured: none among btree alone.
        let mut o = options(Scale::Standard);
        o.profiles = vec!["btree".into()];
        assert_eq!(plan(&o, &enabled()).runs[0].steps[3], RunStep::ForgetGrow);
    }

    #[test]
    fn engines_run_on_the_measured_profiles_or_are_forgotten() {
        let mut o = options(Scale::Standard);
        o.profiles = vec!["sqlite-wal-full".into()];
        assert_eq!(
            plan(&o, &enabled()).runs[0].steps[4],
            RunStep::Engines {
                engines: vec![
                    "trie".into(),
                    "jmt".into(),
                    "mpt".into(),
                    "transact".into(),
                    "nomt".into(),
                ],
                profiles: vec!["sqlite-wal-full".into()],
                leaves: 10_000,
                reads: 100,
            }
        );
        // `--engines` chooses them; `--engines none` forgets an earlier record.
        o.engines = Some(vec!["trie".into()]);
        assert_eq!(
            plan(&o, &enabled()).runs[0].steps[4],
            RunStep::Engines {
                engines: vec!["trie".into()],
                profiles: vec!["sqlite-wal-full".into()],
                leaves: 10_000,
                reads: 100,
            }
        );
        o.engines = Some(Vec::new());
        assert_eq!(
            plan(&o, &enabled()).runs[0].steps[4],
            RunStep::ForgetEngines
        );
        // None of the default engine profiles built in: the step forgets an earlier record.
        o.engines = None;
        o.profiles = Vec::new();
        assert_eq!(plan(&o, &[]).runs[1].steps[4], RunStep::ForgetEngines);
    }

    #[test]
    fn field_flags_pick_the_workloads_at_any_scale() {
        let mut o = options(Scale::Quick);
        o.field = Some(vec!["merk".into(), SMALLBANK.into()]);
        assert_eq!(
            plan(&o, &enabled()).runs[0].steps[5],
            RunStep::Field {
                workloads: vec!["merk".into(), "smallbank".into()],
                profiles: vec!["lmdb".into()],
                size: FieldSize {
                    scale: 1,
                    smallbank_transactions: 2_000,
                },
            }
        );
        let mut o = options(Scale::Standard);
        o.field = Some(Vec::new());
        assert_eq!(plan(&o, &enabled()).runs[0].steps[5], RunStep::ForgetField);
        // `--profiles` picks the field's profiles too.
        let mut o = options(Scale::Standard);
        o.profiles = vec!["btree".into()];
        let RunStep::Field { profiles, .. } = &plan(&o, &enabled()).runs[1].steps[5] else {
            panic!("a field step");
        };
        assert_eq!(profiles, &["btree"]);
        // No default field profile built in: nothing to run.
        assert_eq!(
            plan(&options(Scale::Standard), &["btree".into()]).runs[0].steps[5],
            RunStep::ForgetField
        );
    }

    #[test]
    fn full_adds_criterion_for_the_scalable_and_raw_groups() {
        let plan = plan(&options(Scale::Full), &enabled());
        let criterion = plan
            .criterion
            .as_ref()
            .expect("criterion runs at full scale");
        assert_eq!(criterion.filter.as_deref(), Some("^(kv|scale)/"));
        for run in &plan.runs {
            assert_eq!(
                run.steps,
                [
                    RunStep::CaptureFs,
                    headline(30.0, 30),
                    RunStep::Criterion,
                    RunStep::Phases,
                    grow(1_000_000, 200, 1000),
                    engines(10_000),
                    field(10, 10_000)
                ]
            );
        }
        // The build, 7 steps per run, the report, 2 exports.
        assert_eq!(plan.step_count(), 1 + 14 + 1 + 2);
    }

    #[test]
    fn groups_override_the_scale_and_the_transact_bench_adds_its_stores() {
        let mut o = options(Scale::Full);
        o.criterion.groups = Some(Groups::Headline);
        assert_eq!(plan(&o, &enabled()).criterion, None);
        o.criterion.benches.push("transact".into());
        let c = plan(&o, &enabled()).criterion.expect("transact runs");
        assert_eq!(c.filter.as_deref(), Some("^scenario/[^/]+/transact-"));
        o.criterion.groups = Some(Groups::All);
        let c = plan(&o, &enabled()).criterion.expect("groups run");
        assert_eq!(
            c.filter.as_deref(),
            Some("^(kv|scale)/|^scenario/[^/]+/transact-")
        );
    }

    #[test]
    fn a_filter_hands_the_headline_to_criterion_unless_told_otherwise() {
        let mut o = options(Scale::Standard);
        o.criterion.filter = Some("scenario/suite/".into());
        let p = plan(&o, &enabled());
        assert_eq!(
            p.criterion.as_ref().and_then(|c| c.filter.as_deref()),
            Some("scenario/suite/")
        );
        assert_eq!(
            p.runs[0].steps,
            [
                RunStep::CaptureFs,
                RunStep::ForgetHeadline,
                RunStep::Criterion,
                RunStep::Phases,
                grow(100_000, 50, 300),
                engines(10_000),
                field(1, 2_000)
            ]
        );
        o.criterion_headline = Some(false);
        let p = plan(&o, &enabled());
        assert_eq!(p.runs[0].steps[1], headline(5.0, 30));
        assert_eq!(p.runs[0].steps[2], RunStep::Criterion);
    }

    #[test]
    fn the_criterion_route_without_a_filter_runs_what_the_benches_run() {
        let mut o = options(Scale::Quick);
        o.criterion_headline = Some(true);
        let p = plan(&o, &enabled());
        assert_eq!(p.criterion.as_ref().map(|c| c.filter.clone()), Some(None));
        assert_eq!(
            p.runs[0].steps,
            [
                RunStep::CaptureFs,
                RunStep::ForgetHeadline,
                RunStep::Criterion,
                RunStep::ForgetPhases,
                RunStep::ForgetGrow,
                engines(1_000),
                RunStep::ForgetField
            ]
        );
    }

    #[test]
    fn phases_flags_override_the_scale() {
        let mut o = options(Scale::Quick);
        o.phases = Some(true);
        assert_eq!(plan(&o, &enabled()).runs[0].steps[2], RunStep::Phases);
        let mut o = options(Scale::Full);
        o.phases = Some(false);
        assert_eq!(plan(&o, &enabled()).runs[1].steps[3], RunStep::ForgetPhases);
    }

    #[test]
    fn load_searches_every_profile_on_every_filesystem() {
        let mut o = options(Scale::Standard);
        o.load = Some(LoadOptions {
            state_size: 10_000,
            readers: 2,
        });
        let p = plan(&o, &enabled());
        let pairs: Vec<(&str, &str)> = p
            .loads
            .iter()
            .map(|l| (l.run.name.as_str(), l.profile.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("tmpfs", "btree"),
                ("tmpfs", "lmdb"),
                ("disk", "btree"),
                ("disk", "lmdb")
            ]
        );
        assert!(p
            .loads
            .iter()
            .all(|l| l.step == LOAD_STEP && l.budget == LOAD_BUDGET));
        o.profiles = vec!["sqlite-wal".into()];
        assert_eq!(plan(&o, &enabled()).loads.len(), 2);
    }

    #[test]
    fn io_profile_report_and_export_follow_the_options() {
        let mut o = options(Scale::Quick);
        o.iolab = Some("/lab/iolab".into());
        o.export = None;
        o.out = Some("out".into());
        let p = plan(&o, &enabled());
        assert_eq!(p.io_profile, Some(PathBuf::from("/lab/iolab")));
        assert!(p.exports.is_empty());
        assert_eq!(p.report.out, Some(PathBuf::from("out")));
        assert_eq!(p.step_count(), 12 + 1 + 1);
    }
}
