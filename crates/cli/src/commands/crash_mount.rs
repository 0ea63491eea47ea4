//! `triebench crash-mount` (hidden): serves a slowfs mount in power-loss mode for `crash-test`,
//! in a process of its own (`triebench_crashlab::serve_mount`). Prints `mounted` once the mount
//! is live; SIGTERM unmounts it.

use std::path::PathBuf;

use clap::Args;
use triebench_crashlab::MountOptions;

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct CrashMountArgs {
    /// The directory under test.
    #[arg(long, value_name = "DIR")]
    pub backing: PathBuf,
    /// Where to mount it.
    #[arg(long, value_name = "DIR")]
    pub mountpoint: PathBuf,
    /// Write the op log of every change and sync here (crash-state exploration).
    #[arg(long, value_name = "DIR")]
    pub op_log: Option<PathBuf>,
    /// Fail the Nth fsync-family call with EIO (N or N+).
    #[arg(long, value_name = "N[+]")]
    pub fail_fsync: Option<triebench_slowfs::model::FaultSpec>,
    /// Fail the Nth write with EIO (N or N+).
    #[arg(long, value_name = "N[+]")]
    pub fail_write: Option<triebench_slowfs::model::FaultSpec>,
    /// Fail the Nth write with ENOSPC (N or N+).
    #[arg(long, value_name = "N[+]")]
    pub enospc_write: Option<triebench_slowfs::model::FaultSpec>,
}

/// Serves the mount until SIGTERM.
pub fn run_crash_mount(args: CrashMountArgs) -> Result<(), CliError> {
    let options = MountOptions {
        backing: args.backing,
        mountpoint: args.mountpoint,
        op_log: args.op_log,
        fail_fsync: args.fail_fsync,
        fail_write: args.fail_write,
        enospc_write: args.enospc_write,
    };
    Ok(triebench_crashlab::serve_mount(options)?)
}
