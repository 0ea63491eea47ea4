//! `triebench engines-report`: the section "Engines side by side" and its plot from the
//! engines runs (`engines.json`) of a results folder.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct EnginesReportArgs {
    /// The folder holding engines.json files (itself, or `<fs>/engines.json` below it).
    pub dir: PathBuf,
}

pub fn run_engines_report(args: EnginesReportArgs) -> Result<(), CliError> {
    let path = triebench_report::run_engines_report(&args.dir)?;
    triebench_plan::step::grow::write_env(&args.dir)?;
    println!("engines report written to {}", path.display());
    Ok(())
}
