//! `triebench crash-child` (hidden): the process `crash-test` starts and kills. It opens the
//! store, prints `ready`, then commits random batches forever, printing each new root on its
//! own line (flushed) the moment `commit` has returned: a printed root is an acknowledged one.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use triebench_kv::{BackendSpec, Store, StoreVisitor};
use triebench_workloads::crash::{child::ChildError, commit_forever};

use crate::error::CliError;

/// The line printed once the store is open and commits start.
pub const READY: &str = "ready";

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

struct ChildVisitor {
    from: Option<String>,
    seed: u64,
}

impl StoreVisitor for ChildVisitor {
    type Output = ChildError;

    fn visit<S: Store>(self, store: S) -> ChildError {
        let stdout = io::stdout();
        let out = std::cell::RefCell::new(stdout.lock());
        let ready = || {
            let mut out = out.borrow_mut();
            writeln!(out, "{READY}")?;
            out.flush()
        };
        let ack = |root: &str| {
            let mut out = out.borrow_mut();
            writeln!(out, "{root}")?;
            out.flush()
        };
        match commit_forever(&store, self.from.as_deref(), self.seed, ready, ack) {
            Err(e) => e,
            Ok(never) => match never {},
        }
    }
}

pub fn run_crash_child(args: CrashChildArgs) -> Result<(), CliError> {
    let spec = BackendSpec::parse(&args.backend, Some(args.dir))?;
    let visitor = ChildVisitor {
        from: args.from,
        seed: args.seed,
    };
    let err = spec.open(triebench_merkle::TABLES, visitor)?;
    Err(CliError::CrashTest(format!(
        "the crash-test child stopped: {err}"
    )))
}
