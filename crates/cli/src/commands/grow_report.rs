//! `triebench grow-report`: the section "How cost grows with state" and its plots from the
//! growth curves (`grow.json`) of a results folder.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct GrowReportArgs {
    /// The folder holding grow.json files (itself, `<fs>/` or `<fs>/<profile>/` below it).
    pub dir: PathBuf,
}

pub fn run_grow_report(args: GrowReportArgs) -> Result<(), CliError> {
    let path = triebench_report::run_grow_report(&args.dir)?;
    triebench_plan::step::grow::write_env(&args.dir)?;
    println!("growth report written to {}", path.display());
    Ok(())
}
