//! `triebench export-run NAME`: one filesystem run copied out of the criterion directory into a
//! self-contained run folder (`triebench report --runs FOLDER...` merges folders from several
//! machines). `triebench bench` exports every run it measured the same way.

use std::path::PathBuf;

use clap::Args;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;
use triebench_plan::export_run::{export_run, ExportRun};
use triebench_plan::scale::Scale;

#[derive(Debug, Args)]
pub struct ExportRunArgs {
    /// The run name (the criterion baseline, e.g. `tmpfs`).
    pub name: String,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// The directory the run folder goes in; the folder is HOST-NAME-DATE.
    #[arg(long, value_name = "PARENT", default_value = "runs")]
    pub out: PathBuf,
    /// The host name the folder carries [default: this machine's].
    #[arg(long, value_name = "NAME", env = "TRIEBENCH_HOST")]
    pub host: Option<String>,
    /// The scale the run was measured at, recorded in the manifest.
    #[arg(long, value_enum, default_value = "standard", env = "TRIEBENCH_SCALE")]
    pub scale: Scale,
}

pub fn run_export_run(args: ExportRunArgs) -> Result<(), CliError> {
    triebench_report::read::fs_info::validate_run_name(&args.name)?;
    let criterion_dir = args.criterion.resolve();
    let host = args
        .host
        .filter(|h| !h.is_empty())
        .unwrap_or_else(triebench_record::host::hostname);
    let folder = export_run(&ExportRun {
        run: &args.name,
        criterion_dir: &criterion_dir,
        parent: &args.out,
        host: &host,
        scale: args.scale.name(),
    })?;
    println!("{}", folder.display());
    Ok(())
}
