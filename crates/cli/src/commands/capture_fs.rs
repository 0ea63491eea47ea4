//! `triebench capture-fs`: which filesystem a run's directory is on and what it charges per
//! operation class, recorded as the run's sidecar.

use std::path::PathBuf;

use clap::Args;

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
    // The run's directory, made as `headline` and `phases` make it, so that the filesystem
    // recorded is the one they will measure.
    crate::commands::make_dir::make_dir("DIR", &args.dir)?;
    let (sidecar, info) = triebench_measure::capture_fs(
        &args.name,
        &args.dir,
        &args.criterion.resolve(),
        !args.no_latency,
    )?;
    println!(
        "run `{}`: {} is on {} ({}, mounted at {}); recorded in {}",
        args.name,
        args.dir.display(),
        info.device,
        info.fs_type,
        info.mount_point,
        sidecar.display()
    );
    if let Some(lat) = info.latency_us {
        println!(
            "run `{}`: median µs per operation: metadata {:.1}, read {:.1}, write {:.1}, sync {:.1}",
            args.name, lat.metadata, lat.read, lat.write, lat.sync
        );
    }
    Ok(())
}
