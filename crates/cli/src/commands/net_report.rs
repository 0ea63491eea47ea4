//! `triebench net-report`: the section "Time against distance to the database server" and its
//! plot (suite time against the round trip `--net-rtt` added, per profile) from the headline run
//! records and `load.json` files of a results folder.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct NetReportArgs {
    /// The folder holding headline.json and load.json files (up to four levels below it).
    pub dir: PathBuf,
}

pub fn run_net_report(args: NetReportArgs) -> Result<(), CliError> {
    let path = triebench_report::run_net_report(&args.dir)?;
    triebench_plan::step::grow::write_env(&args.dir)?;
    println!("network report written to {}", path.display());
    Ok(())
}
