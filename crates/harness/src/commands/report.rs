//! `triebench report`: saved criterion runs to a result folder.

use std::path::PathBuf;

use clap::Args;
use triebench_report::{run_report as write_report, ReportArgs};

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct ReportCliArgs {
    /// The run (criterion baseline name) every slowdown is relative to, e.g. `tmpfs`.
    #[arg(long, value_name = "NAME")]
    pub baseline: String,
    /// Runs to compare (repeatable); default every saved baseline.
    #[arg(long = "runs", value_name = "NAME", num_args = 1..)]
    pub runs: Vec<String>,
    /// Output folder [default: results/DATE-HOST-LABEL].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Criterion's output directory [default: $CARGO_TARGET_DIR/criterion or target/criterion].
    #[arg(long, value_name = "DIR")]
    pub criterion_dir: Option<PathBuf>,
    /// Label in the default folder name [default: the run names joined with `-`].
    #[arg(long)]
    pub label: Option<String>,
}

pub fn run_report(args: ReportCliArgs) -> Result<(), CliError> {
    let folder = write_report(&ReportArgs {
        baseline: args.baseline,
        runs: args.runs,
        out: args.out,
        criterion_dir: args.criterion_dir,
        label: args.label,
        results_root: PathBuf::from("results"),
    })?;
    println!("report written to {}", folder.display());
    Ok(())
}
