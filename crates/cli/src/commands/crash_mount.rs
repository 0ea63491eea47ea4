//! `triebench crash-mount` (hidden): serves a slowfs mount in power-loss mode for `crash-test`,
//! in a process of its own. The mount must not be served by the process that checks the store
//! through it: a page fault on a mapped file of the mount (LMDB maps its data file) would wait
//! for a server thread that may itself wait on the same process's memory map lock. Prints
//! `mounted` once the mount is live; SIGTERM unmounts it. `.slowfs-control` takes the cut.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

/// The line printed once the mount is live.
pub const MOUNTED: &str = "mounted";

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

/// Serves the mount until SIGTERM, printing [`MOUNTED`] once it is live.
#[cfg(target_os = "linux")]
pub fn run_crash_mount(args: CrashMountArgs) -> Result<(), CliError> {
    use std::io::Write;
    use triebench_slowfs::{Latency, LatencyProfile, MountConfig, PerClass};
    let fail = |e: triebench_slowfs::SlowfsError| CliError::CrashTest(e.to_string());
    let config = MountConfig {
        backing: args.backing,
        mountpoint: args.mountpoint,
        latency: Latency::new(LatencyProfile::None, PerClass::default()).map_err(fail)?,
        stats_out: None,
        threads: 4,
        power_loss: true,
        op_log: args.op_log,
        fail_fsync: args.fail_fsync,
        fail_write: args.fail_write,
        enospc_write: args.enospc_write,
    };
    triebench_slowfs::run(&config, |_, _| {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "{MOUNTED}");
        let _ = out.flush();
    })
    .map_err(fail)?;
    Ok(())
}

/// Elsewhere there is no slowfs mount to serve.
#[cfg(not(target_os = "linux"))]
pub fn run_crash_mount(_args: CrashMountArgs) -> Result<(), CliError> {
    Err(CliError::CrashTest(
        "crash-mount serves a slowfs mount, which is Linux only (FUSE)".into(),
    ))
}
