//! A power-loss mount served by threads of the calling process: mount, write through it,
//! [cut power](PowerLossMount::cut), unmount. Only for callers that never `mmap` files of the
//! mount themselves: a page fault on the mount waits for a server thread, which may wait on the
//! same process's memory-map lock (a deadlock seen with LMDB). `triebench crash-test` therefore
//! serves its mount in a process of its own (`slowfs::run` with `power_loss`), and cuts power
//! with `echo cut > MOUNTPOINT/.slowfs-control`, as the standalone `slowfs --power-loss` does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fuser::{BackgroundSession, Session};

use crate::error::SlowfsError;
use crate::fs::SlowFs;
use crate::latency_profile::{Latency, LatencyProfile};
use crate::mount::{check_backing, check_fuse_device, check_mountpoint, fuse_config};
use crate::power::PowerLoss;
use crate::stats::Stats;
use crate::PerClass;

/// A live slowfs mount in power-loss mode, served in the background; unmounted on drop.
pub struct PowerLossMount {
    session: Option<BackgroundSession>,
    power: Arc<PowerLoss>,
    mountpoint: PathBuf,
}

impl std::fmt::Debug for PowerLossMount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PowerLossMount")
            .field("mountpoint", &self.mountpoint)
            .finish()
    }
}

impl PowerLossMount {
    /// Mounts `backing` on `mountpoint` (an empty directory) in power-loss mode, no delays.
    ///
    /// # Errors
    /// Bad paths, no `/dev/fuse`, or a failed mount.
    pub fn mount(backing: &Path, mountpoint: &Path) -> Result<PowerLossMount, SlowfsError> {
        let backing = check_backing(backing)?;
        let mountpoint = check_mountpoint(mountpoint, &backing)?;
        check_fuse_device()?;
        let latency = Latency::new(LatencyProfile::None, PerClass::default())?;
        let power = Arc::new(PowerLoss::new());
        let fs = SlowFs::new(backing, Arc::new(Stats::new(latency))).with_power_loss(power.clone());
        let session = Session::new(fs, &mountpoint, &fuse_config(4))
            .and_then(Session::spawn)
            .map_err(|source| SlowfsError::Mount {
                path: mountpoint.clone(),
                source,
            })?;
        Ok(PowerLossMount {
            session: Some(session),
            power,
            mountpoint,
        })
    }

    /// Where the filesystem is mounted.
    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    /// Cuts power: every change not yet synced is undone and the mount refuses changes from
    /// now on. Returns how many files were rolled back.
    ///
    /// # Errors
    /// The backing files could not be restored.
    pub fn cut(&self) -> std::io::Result<usize> {
        self.power.cut()
    }

    /// Unmounts and waits for the serving threads to finish.
    ///
    /// # Errors
    /// The unmount failed (the mount is busy).
    pub fn unmount(mut self) -> Result<(), SlowfsError> {
        match self.session.take() {
            Some(session) => session
                .umount_and_join()
                .map_err(|source| SlowfsError::Session {
                    path: self.mountpoint.clone(),
                    source,
                }),
            None => Ok(()),
        }
    }
}

impl Drop for PowerLossMount {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            let _ = session.umount_and_join();
        }
    }
}
