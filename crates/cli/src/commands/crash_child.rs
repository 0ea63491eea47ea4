//! `triebench crash-child` (hidden): the process `crash-test` starts and kills
//! (`triebench_crashlab::run_child`): it opens the store, prints `ready`, then commits random
//! batches forever, printing each new root the moment `commit` has returned.

use std::path::PathBuf;

use clap::Args;
use triebench_crashlab::ChildOptions;

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct CrashChildArgs {
    /// Backend profile.
    #[arg(long, value_name = "NAME")]
    pub backend: String,
    /// The store's directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Seed of the random batches.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The root to resume from (default: the empty root).
    #[arg(long, value_name = "ROOT")]
    pub from: Option<String>,
}

pub fn run_crash_child(args: CrashChildArgs) -> Result<(), CliError> {
    let options = ChildOptions {
        backend: args.backend,
        dir: args.dir,
        seed: args.seed,
        from: args.from,
    };
    match triebench_crashlab::run_child(options) {
        Err(e) => Err(e.into()),
        Ok(never) => match never {},
    }
}
