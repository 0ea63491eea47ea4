//! The power-loss mount server: serves a slowfs mount in power-loss mode for the rounds, in a
//! process of its own (the binary's hidden `crash-mount` command). The mount must not be
//! served by the process that checks the store through it: a page fault on a mapped file of the
//! mount (LMDB maps its data file) would wait for a server thread that may itself wait on the
//! same process's memory map lock. Prints [`MOUNTED`] once the mount is live; SIGTERM unmounts
//! it. `.slowfs-control` takes the cut.

use std::path::PathBuf;

use triebench_slowfs::model::FaultSpec;

use crate::error::CrashError;

/// The line printed once the mount is live.
pub(crate) const MOUNTED: &str = "mounted";

/// What the mount server mounts, and the faults it injects.
#[derive(Debug, Clone)]
pub struct MountOptions {
    /// The directory under test.
    pub backing: PathBuf,
    /// Where to mount it.
    pub mountpoint: PathBuf,
    /// Where to write the op log of every change and sync (crash-state exploration).
    pub op_log: Option<PathBuf>,
    /// Fail the Nth fsync-family call with EIO.
    pub fail_fsync: Option<FaultSpec>,
    /// Fail the Nth write with EIO.
    pub fail_write: Option<FaultSpec>,
    /// Fail the Nth write with ENOSPC.
    pub enospc_write: Option<FaultSpec>,
}

/// Serves the mount until SIGTERM, printing `mounted` on stdout once it is live.
///
/// # Errors
/// [`CrashError::Serve`] when the mount fails.
#[cfg(target_os = "linux")]
pub fn serve_mount(options: MountOptions) -> Result<(), CrashError> {
    use std::io::Write;
    use triebench_slowfs::{Latency, LatencyProfile, MountConfig, PerClass};
    let config = MountConfig {
        backing: options.backing,
        mountpoint: options.mountpoint,
        latency: Latency::new(LatencyProfile::None, PerClass::default())?,
        stats_out: None,
        threads: 4,
        power_loss: true,
        op_log: options.op_log,
        fail_fsync: options.fail_fsync,
        fail_write: options.fail_write,
        enospc_write: options.enospc_write,
    };
    triebench_slowfs::run(&config, |_, _| {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "{MOUNTED}");
        let _ = out.flush();
    })?;
    Ok(())
}

/// Elsewhere there is no slowfs mount to serve.
///
/// # Errors
/// Always [`CrashError::ServeNoFuse`].
#[cfg(not(target_os = "linux"))]
pub fn serve_mount(_options: MountOptions) -> Result<(), CrashError> {
    Err(CrashError::ServeNoFuse)
}
