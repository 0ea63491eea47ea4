//! `triebench io-profile`: what every scenario asks of the filesystem, per backend profile,
//! counted on a slowfs mount.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::io_profile::{io_profile, IoProfileOptions};
use triebench_record::layout::io_profile_path;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct IoProfileArgs {
    /// The root of a slowfs mount (it serves `.slowfs-stats`).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Backend profiles to count, comma-separated [default: every profile built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// Output file [default: CRITERION_DIR/triebench-runs/io-profile.json, where report
    /// finds it].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Also sample the run into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
}

pub fn run_io_profile(args: IoProfileArgs) -> Result<(), CliError> {
    let out = args
        .out
        .unwrap_or_else(|| io_profile_path(&args.criterion.resolve()));
    Ok(io_profile(&IoProfileOptions {
        dir: args.dir,
        profiles: args.profiles,
        out,
        flamegraph: args.flamegraph,
    })?)
}
