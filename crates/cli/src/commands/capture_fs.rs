//! `triebench capture-fs`: which filesystem a run's directory is on and what it charges per
//! operation class, recorded as the run's sidecar.

use std::path::PathBuf;

use clap::Args;

use triebench_plan::step::capture_fs::{capture_fs, CaptureFsOptions};

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct CaptureFsArgs {
    /// The run name (the criterion baseline it will be saved as).
    pub name: String,
    /// The directory the run will use as TMPDIR.
    pub dir: PathBuf,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Skip the latency probe (about a second on a local disk, longer on slow storage).
    #[arg(long)]
    pub no_latency: bool,
}

pub fn run_capture_fs(args: CaptureFsArgs) -> Result<(), CliError> {
    Ok(capture_fs(&CaptureFsOptions {
        name: args.name,
        dir: args.dir,
        criterion_dir: args.criterion.resolve(),
        latency: !args.no_latency,
    })?)
}
