//! `triebench bench [NAME=DIR ...]`: the main job. Its arguments, resolved into the options of
//! `triebench_plan`, which makes the plan and runs it; the report and the run folders at the end.
//!
//! Each flag may also come from the environment variable `scripts/bench-fs.sh` read before
//! (`TRIEBENCH_SCALE`, ...), named in its help; a flag on the command line wins.

use std::path::PathBuf;

use clap::Args;
use triebench_measure::engines_run::EngineName;
use triebench_plan::checkout::{checkout, default_disk_dir};
use triebench_plan::iolab::IoLabChoice;
use triebench_plan::main_job::{run_main_job, MainJob};
use triebench_plan::run_spec::{default_runs, parse_runs, shm_is_tmpfs};
use triebench_plan::scale::Scale;
use triebench_plan::steps::{
    default_field_workloads, parse_criterion, CriterionOptions, Groups, GrowChoice, LoadOptions,
    Options, DEFAULT_EXPORT, SMALLBANK,
};
use triebench_record::CpuIdle;
use triebench_workloads::field::FieldWorkload;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Filesystems to measure, each a run name and a directory on it; the first is the baseline
    /// the report divides by [default: tmpfs=/dev/shm when it is a tmpfs, and
    /// disk=CHECKOUT/target/bench-disk, CHECKOUT being the checkout this binary was built from].
    #[arg(value_name = "NAME=DIR")]
    pub runs: Vec<String>,
    /// Run size: `quick` (one headline round per profile, no phases), `standard` (up to 5 s of
    /// rounds per profile, phases), `full` (up to 30 s, phases, criterion's scalable and raw
    /// groups).
    #[arg(long, value_enum, default_value = "standard", env = "TRIEBENCH_SCALE")]
    pub scale: Scale,
    /// Backend profiles, comma-separated [default: every profile built in].
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        env = "TRIEBENCH_PROFILES"
    )]
    pub profiles: Vec<String>,
    /// Time where each commit's time goes (`triebench phases`) on each filesystem [default: on,
    /// off at quick scale]; `--phases=false` or `--no-phases` skips it.
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = clap::builder::BoolishValueParser::new(),
        env = "TRIEBENCH_PHASES",
        overrides_with = "no_phases"
    )]
    pub phases: Option<bool>,
    /// Skip the phase breakdown.
    #[arg(long, overrides_with = "phases")]
    pub no_phases: bool,
    /// Also search each profile's sustained commits/s on each filesystem (`triebench load
    /// --saturate`, up to a minute per profile and filesystem).
    #[arg(long, env = "TRIEBENCH_LOAD", value_parser = clap::builder::FalseyValueParser::new())]
    pub load: bool,
    /// Leaves preloaded before each load search.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000,
        env = "TRIEBENCH_LOAD_STATE"
    )]
    pub load_state: u64,
    /// Reader threads beside each load search's writer.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2,
        env = "TRIEBENCH_LOAD_READERS"
    )]
    pub load_readers: usize,
    /// Leaves at the last checkpoint of the growth curves (`triebench grow`, warm and cold
    /// reads) on each filesystem, or 0 for none [default: none at quick scale, 100000 at
    /// standard, 1000000 at full].
    #[arg(long, value_name = "N", env = "TRIEBENCH_GROW_MAX")]
    pub grow_max: Option<u64>,
    /// Profiles the growth curves run on, comma-separated [default: lmdb, sqlite-wal-full and
    /// postgres, those of them built in and measured].
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        env = "TRIEBENCH_GROW_PROFILES"
    )]
    pub grow_profiles: Vec<String>,
    /// The slowfs counting mount for the I/O profile, or `none` to skip it [default: the one
    /// `scripts/fs-lab.sh iolab` names when the lab is up].
    #[arg(long, value_name = "DIR|none", env = "TRIEBENCH_IOLAB")]
    pub iolab: Option<String>,
    /// Engines the engines step runs side by side, comma-separated (`triebench engines`'s: trie,
    /// jmt, mpt, transact, nomt), or `none` to skip the step [default: all of them].
    #[arg(
        long,
        value_name = "A,B|none",
        value_delimiter = ',',
        env = "TRIEBENCH_ENGINES"
    )]
    pub engines: Vec<String>,
    /// The field step's workloads, comma-separated (`triebench field`'s: firewood-create,
    /// firewood-tenkrandom, firewood-zipf, firewood-single, iavl-bank, merk; and smallbank,
    /// `triebench smallbank`), or `none` [default: all of them at standard and full scale, none
    /// at quick].
    #[arg(
        long,
        value_name = "A,B|none",
        value_delimiter = ',',
        env = "TRIEBENCH_FIELD"
    )]
    pub field: Vec<String>,
    /// Report folder [default: runs/reports/DATE-HOST-LABEL].
    #[arg(long, value_name = "DIR", env = "TRIEBENCH_OUT")]
    pub out: Option<String>,
    /// Where the run folders go, one per filesystem (`report --runs` merges them, from any
    /// machine), or `none`.
    #[arg(
        long,
        value_name = "DIR|none",
        default_value = DEFAULT_EXPORT,
        env = "TRIEBENCH_RUNS_DIR"
    )]
    pub export: String,
    /// The host name run folders carry [default: this machine's].
    #[arg(long, value_name = "NAME", env = "TRIEBENCH_HOST")]
    pub host: Option<String>,
    /// What idle CPUs do while measuring: `poll` (hold /dev/cpu_dma_latency at 0 µs when root)
    /// or `os`.
    #[arg(
        long,
        value_name = "MODE",
        default_value = "poll",
        env = "TRIEBENCH_CPU_IDLE"
    )]
    pub cpu_idle: CpuIdle,
    /// Measure the headline with criterion's benches (`cargo bench`, at least eleven runs of
    /// each scenario; slower) instead of `triebench headline` [default: with --filter];
    /// `--criterion=false` keeps `triebench headline` with a filter. The environment's
    /// TRIEBENCH_HEADLINE takes `criterion` or `runs`.
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = parse_criterion,
        env = "TRIEBENCH_HEADLINE"
    )]
    pub criterion: Option<bool>,
    /// Criterion's filter regex (e.g. `scenario/suite|floor`): criterion measures what it
    /// selects, the headline's groups included.
    #[arg(long, value_name = "REGEX", env = "TRIEBENCH_FILTER")]
    pub filter: Option<String>,
    /// Criterion's groups beside the headline's: `all` adds the scalable (`scale/`) and raw
    /// backend (`kv/`) groups [default: all at full scale, else headline].
    #[arg(long, value_enum, env = "TRIEBENCH_GROUPS")]
    pub groups: Option<Groups>,
    /// Criterion's bench targets, when criterion runs.
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        default_value = "merkle,kv,phases",
        env = "TRIEBENCH_BENCHES"
    )]
    pub benches: Vec<String>,
    /// Cargo features of criterion's bench build (`transact` adds Transact's stores).
    #[arg(
        long,
        value_name = "F,G",
        default_value = "all-backends",
        env = "TRIEBENCH_FEATURES"
    )]
    pub features: String,
    /// Samples per criterion benchmark (at least 10) [default: per scale and profile].
    #[arg(long, value_name = "N", env = "TRIEBENCH_SAMPLES",
          value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(10..))]
    pub samples: Option<u32>,
    /// Keep criterion's HTML plots (off: they cost more than many benchmarks on 2 cores, and the
    /// report does not read them).
    #[arg(long, env = "TRIEBENCH_PLOTS", value_parser = clap::builder::FalseyValueParser::new())]
    pub plots: bool,
    #[command(flatten)]
    pub criterion_dir: CriterionDirArg,
    /// Print the plan and stop.
    #[arg(long)]
    pub dry_run: bool,
}

/// A list flag that may also be `none` (`--engines`, `--field`): `None` when not given (or
/// given empty), an empty list for `none`, else the names, each checked by `check` before
/// anything runs.
fn names_or_none(
    args: &[String],
    check: impl Fn(&str) -> Result<String, CliError>,
) -> Result<Option<Vec<String>>, CliError> {
    let names: Vec<&str> = args
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .collect();
    match names.as_slice() {
        [] => Ok(None),
        ["none"] => Ok(Some(Vec::new())),
        names => names
            .iter()
            .map(|&name| check(name))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
    }
}

/// `--engines`: each name one of `triebench engines`'s.
fn engines_choice(args: &[String]) -> Result<Option<Vec<String>>, CliError> {
    names_or_none(args, |name| {
        name.parse::<EngineName>()
            .map(|engine| engine.name().to_string())
            .map_err(|unknown| CliError::Usage(format!("--engines: {unknown}")))
    })
}

/// `--field`: each name one of the field's workloads or `smallbank`.
fn field_choice(args: &[String]) -> Result<Option<Vec<String>>, CliError> {
    names_or_none(args, |name| {
        if name == SMALLBANK || name.parse::<FieldWorkload>().is_ok() {
            Ok(name.to_string())
        } else {
            Err(CliError::Usage(format!(
                "--field: unknown workload `{name}`: the field step runs {}",
                default_field_workloads().join(", ")
            )))
        }
    })
}

pub fn run_bench(args: BenchArgs) -> Result<(), CliError> {
    let runs = if args.runs.is_empty() {
        default_runs(shm_is_tmpfs(), default_disk_dir())
    } else {
        parse_runs(&args.runs)?
    };
    let checkout = checkout();
    // An empty value (an environment variable set to nothing) counts as not given, as it did
    // for bench-fs.sh.
    let export = match args.export.as_str() {
        "none" => None,
        "" => Some(PathBuf::from(DEFAULT_EXPORT)),
        dir => Some(PathBuf::from(dir)),
    };
    let options = Options {
        scale: args.scale,
        runs,
        profiles: args
            .profiles
            .iter()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        phases: if args.no_phases {
            Some(false)
        } else {
            args.phases
        },
        criterion_headline: args.criterion,
        criterion: CriterionOptions {
            features: args.features,
            benches: args
                .benches
                .iter()
                .flat_map(|b| b.split_whitespace())
                .map(String::from)
                .collect(),
            filter: args.filter.filter(|f| !f.is_empty()),
            groups: args.groups,
            samples: args.samples,
            plots: args.plots,
        },
        load: args.load.then_some(LoadOptions {
            state_size: args.load_state,
            readers: args.load_readers,
        }),
        grow: GrowChoice {
            max_leaves: args.grow_max,
            profiles: args
                .grow_profiles
                .iter()
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        },
        iolab: IoLabChoice::from_arg(args.iolab.as_deref()).resolve(checkout.as_deref()),
        engines: engines_choice(&args.engines)?,
        field: field_choice(&args.field)?,
        cpu_idle: args.cpu_idle,
        out: args.out.filter(|o| !o.is_empty()).map(PathBuf::from),
        export,
    };
    let host = args.host.filter(|h| !h.is_empty());
    let job = MainJob {
        options,
        criterion_dir: args.criterion_dir.resolve(),
        checkout,
        host: host.unwrap_or_else(triebench_record::host::hostname),
        dry_run: args.dry_run,
    };
    Ok(run_main_job(&job)?)
}
