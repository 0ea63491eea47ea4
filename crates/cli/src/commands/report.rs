//! `triebench report`: saved criterion runs, or run folders from several machines, to a result
//! folder.

use std::path::{Path, PathBuf};

use clap::Args;
use triebench_report::merged::{run_merged_report, MergedArgs};
use triebench_report::read::run_folders::is_run_folder;
use triebench_report::{run_report as write_report, ReportArgs, DEFAULT_REPORTS_ROOT};

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct ReportCliArgs {
    /// The run every slowdown is relative to: a criterion baseline name (e.g. `tmpfs`); with run
    /// folders, `<host>.<filesystem>` or a filesystem name [default there: the first folder].
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Runs to compare (repeatable): criterion baseline names [default: every saved baseline],
    /// or run folders made by `triebench export-run` on any machine (paths), merged into one
    /// report whose columns are `<host>.<filesystem>`.
    #[arg(long = "runs", value_name = "NAME|DIR", num_args = 1..)]
    pub runs: Vec<String>,
    /// Output folder [default: runs/reports/DATE-HOST-LABEL]. Written fresh beside it and renamed
    /// into place; never one of the inputs (or inside or around one), and an existing folder
    /// is replaced only if a report wrote it (what else it holds is kept).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Label in the default folder name [default: the run names joined with `-`, or `merged`].
    #[arg(long)]
    pub label: Option<String>,
}

pub fn run_report(args: ReportCliArgs) -> Result<(), CliError> {
    let folders = args
        .runs
        .iter()
        .filter(|r| is_run_folder(Path::new(r)))
        .count();
    let folder = if folders > 0 {
        if folders != args.runs.len() || args.criterion.criterion_dir.is_some() {
            return Err(CliError::Usage(
                "--runs takes either run folders (directories with manifest.json) or criterion \
                 baseline names, not both; run folders need no --criterion-dir"
                    .into(),
            ));
        }
        run_merged_report(&MergedArgs {
            folders: args.runs.iter().map(PathBuf::from).collect(),
            baseline: args.baseline,
            out: args.out,
            label: args.label,
            results_root: PathBuf::from(DEFAULT_REPORTS_ROOT),
        })?
    } else {
        let Some(baseline) = args.baseline else {
            return Err(CliError::Usage(
                "--baseline NAME is required with criterion baseline names (e.g. --baseline tmpfs)"
                    .into(),
            ));
        };
        write_report(&ReportArgs {
            baseline,
            runs: args.runs,
            out: args.out,
            criterion_dir: args.criterion.criterion_dir,
            label: args.label,
            results_root: PathBuf::from(DEFAULT_REPORTS_ROOT),
        })?
    };
    println!("report written to {}", folder.display());
    Ok(())
}
