//! `triebench phases`: where a commit's time goes, per backend profile, on one filesystem:
//! every scenario once per profile with the phase collector listening.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::phases::{phases, PhasesOptions};
use triebench_record::layout::phases_path;
use triebench_record::CpuIdle;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct PhasesArgs {
    /// Directory on the filesystem under test (fresh store directories are made in it).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The run (filesystem) name, as given to `capture-fs` and the criterion baseline.
    #[arg(long, value_name = "NAME", default_value = "run")]
    pub run: String,
    /// Backend profiles, comma-separated [default: every profile built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// Output file [default: CRITERION_DIR/triebench-runs/phases/NAME.json, where report
    /// finds it].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Also sample the run into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
    /// What idle CPUs do while measuring, as for `headline`: `poll` (hold /dev/cpu_dma_latency
    /// at 0 µs when root) or `os`.
    #[arg(long, value_name = "MODE", default_value = "poll")]
    pub cpu_idle: CpuIdle,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

pub fn run_phases(args: PhasesArgs) -> Result<(), CliError> {
    args.net.apply()?;
    let out = args
        .out
        .unwrap_or_else(|| phases_path(&args.criterion.resolve(), &args.run));
    Ok(phases(&PhasesOptions {
        dir: args.dir,
        run: args.run,
        profiles: args.profiles,
        out,
        flamegraph: args.flamegraph,
        cpu_idle: args.cpu_idle,
    })?)
}
