//! `triebench report`: saved criterion runs, or run folders from several machines, to a result
//! folder.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::report::{report, ReportOptions};

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
    /// report whose columns are `<host>.<filesystem>`; or one folder of `triebench field` and
    /// `triebench smallbank` JSON results, whose report.md (in the folder, or in --out) sets
    /// them "Against published figures".
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
    Ok(report(&ReportOptions {
        baseline: args.baseline,
        runs: args.runs,
        out: args.out,
        criterion_dir: args.criterion.criterion_dir,
        label: args.label,
    })?)
}
