//! `triebench root`: replays a JSON Lines commit file from the empty root on a backend and
//! prints each new state root.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::root::{root, RootOptions};

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct RootArgs {
    /// The commit file; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    pub backend: String,
    /// Directory for the data of file-backed profiles [default: a fresh temporary directory,
    /// removed on exit].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Time each phase of the replay (node reads, hashing, encoding, storage writes, commit)
    /// and write `{"total_ns", "phases": {name: ns}, ...}` to FILE; the breakdown is also
    /// printed on standard error. The roots are then printed all at once, at the end.
    #[arg(long, value_name = "FILE")]
    pub phases: Option<PathBuf>,
    /// Sample the replay into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

pub fn run_root(args: RootArgs) -> Result<(), CliError> {
    args.net.apply()?;
    Ok(root(&RootOptions {
        file: args.file,
        backend: args.backend,
        dir: args.dir,
        phases: args.phases,
        flamegraph: args.flamegraph,
    })?)
}
