//! Checking the paths, mounting, serving until unmounted or signalled, and writing the stats.

use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fuser::{Config, MountOption, Session, SessionACL};

use crate::error::SlowfsError;
use crate::fs::SlowFs;
use crate::latency_profile::Latency;
use crate::model::{FaultPlan, FaultSpec, OpLog};
use crate::power::PowerLoss;
use crate::snapshot::StatsSnapshot;
use crate::stats::Stats;

/// Everything one `slowfs` run needs.
#[derive(Debug, Clone)]
pub struct MountConfig {
    /// The directory whose contents the mount shows (must exist).
    pub backing: PathBuf,
    /// Where to mount (an existing, empty directory that is not already a mount point).
    pub mountpoint: PathBuf,
    /// The delays.
    pub latency: Latency,
    /// Where to write the final stats JSON after unmounting, if anywhere.
    pub stats_out: Option<PathBuf>,
    /// FUSE worker threads (requests served, and delayed, concurrently).
    pub threads: usize,
    /// Power-loss mode ([`crate::power`]): unsynced data is undone by a cut, requested by
    /// writing `cut` to `MOUNTPOINT/.slowfs-control`.
    pub power_loss: bool,
    /// Where to write the op log ([`crate::model::oplog`]) of every change and sync, if
    /// anywhere: the input of the stricter crash models.
    pub op_log: Option<PathBuf>,
    /// `EIO` from the Nth fsync-family call ([`crate::model::faults`]).
    pub fail_fsync: Option<FaultSpec>,
    /// `EIO` from the Nth write.
    pub fail_write: Option<FaultSpec>,
    /// `ENOSPC` from the Nth write.
    pub enospc_write: Option<FaultSpec>,
}

/// The canonical backing directory, or why it cannot be used.
///
/// # Errors
/// [`SlowfsError::Backing`] if it is missing or not a directory.
pub fn check_backing(path: &Path) -> Result<PathBuf, SlowfsError> {
    let bad = |reason: String| SlowfsError::Backing {
        path: path.to_path_buf(),
        reason,
    };
    let canonical = path.canonicalize().map_err(|e| bad(describe(&e)))?;
    if !canonical.is_dir() {
        return Err(bad("not a directory".into()));
    }
    Ok(canonical)
}

/// The canonical mount point, or why it cannot be used: it must be an empty directory, not
/// already a mount point, and neither the backing directory nor inside it or above it.
///
/// # Errors
/// [`SlowfsError::MountPoint`] naming the problem.
pub fn check_mountpoint(path: &Path, backing: &Path) -> Result<PathBuf, SlowfsError> {
    let bad = |reason: String| SlowfsError::MountPoint {
        path: path.to_path_buf(),
        reason,
    };
    let canonical = path.canonicalize().map_err(|e| bad(describe(&e)))?;
    if !canonical.is_dir() {
        return Err(bad("not a directory".into()));
    }
    if is_mount_point(&canonical).map_err(|e| bad(format!("reading /proc/self/mountinfo: {e}")))? {
        return Err(bad(
            "already a mount point (unmount it first: fusermount3 -u or umount)".into(),
        ));
    }
    let mut entries = fs::read_dir(&canonical).map_err(|e| bad(describe(&e)))?;
    if entries.next().is_some() {
        return Err(bad("not empty".into()));
    }
    if canonical.starts_with(backing) || backing.starts_with(&canonical) {
        return Err(bad(format!(
            "overlaps the backing directory {}",
            backing.display()
        )));
    }
    Ok(canonical)
}

/// Whether `path` (canonical) is the mount point of a mounted filesystem, per
/// `/proc/self/mountinfo`.
///
/// # Errors
/// Reading `/proc/self/mountinfo` failed.
pub fn is_mount_point(path: &Path) -> io::Result<bool> {
    let info = fs::read_to_string("/proc/self/mountinfo")?;
    Ok(info
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .any(|field| Path::new(&crate::mountinfo::unescape(field)) == path))
}

/// Whether the kernel's FUSE device can be opened.
///
/// # Errors
/// [`SlowfsError::NoFuse`] saying why not.
pub fn check_fuse_device() -> Result<(), SlowfsError> {
    match OpenOptions::new().read(true).write(true).open("/dev/fuse") {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(SlowfsError::NoFuse {
            reason: "/dev/fuse does not exist (load the module: modprobe fuse; in a container, \
                     pass the device in)"
                .into(),
        }),
        Err(e) => Err(SlowfsError::NoFuse {
            reason: format!("cannot open /dev/fuse: {e}"),
        }),
    }
}

fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "does not exist".into(),
        _ => e.to_string(),
    }
}

/// Blocks the termination signals in this thread (and threads it spawns later), returning
/// the set for `sigwait`.
fn block_termination_signals() -> Result<libc::sigset_t, SlowfsError> {
    // SAFETY: sigset_t is plain data initialised by sigemptyset before use; pthread_sigmask
    // only changes this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if rc != 0 {
            return Err(SlowfsError::Setup {
                what: "blocking SIGINT/SIGTERM",
                source: io::Error::from_raw_os_error(rc),
            });
        }
        Ok(set)
    }
}

/// Detaches the mount at `path` (`umount -l`): gone from the namespace now, served until the
/// last open file closes.
fn lazy_unmount(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a valid NUL-terminated path.
    if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Writes `json` to `path` through a temporary file and a rename, so readers never see half.
///
/// # Errors
/// [`SlowfsError::StatsOut`].
pub fn write_stats(path: &Path, snapshot: &StatsSnapshot) -> Result<(), SlowfsError> {
    let err = |source| SlowfsError::StatsOut {
        path: path.to_path_buf(),
        source,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, snapshot.to_json()).map_err(err)?;
    fs::rename(&tmp, path).map_err(err)
}

/// The FUSE options every slowfs mount uses (no write-back cache: writes are write-through).
///
/// Mounted by root, the mount also serves other users (`allow_other`), with the kernel checking
/// each access against the modes and owners slowfs reports (`default_permissions`), and nodes a
/// user creates are that user's: a server that refuses to run as root (PostgreSQL, run as
/// `nobody`) works on it as on a kernel filesystem. Other mounters keep FUSE's default: only they
/// see the mount (`allow_other` would need `user_allow_other` in `/etc/fuse.conf`).
pub(crate) fn fuse_config(threads: usize) -> Config {
    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName("slowfs".into()),
        MountOption::Subtype("slowfs".into()),
        MountOption::RW,
    ];
    if rustix::process::geteuid().is_root() {
        config.acl = SessionACL::All;
        config.mount_options.push(MountOption::DefaultPermissions);
    }
    config.n_threads = Some(threads.max(1));
    config
}

/// Mounts slowfs and serves it in this thread until it is unmounted (`fusermount3 -u`,
/// `umount`) or the process gets SIGINT, SIGTERM or SIGHUP (then it unmounts itself, lazily if
/// the mount is busy). Calls `on_mounted` once the mount is live. Returns the final counters,
/// also written to `stats_out` if set.
///
/// # Errors
/// Any [`SlowfsError`]: bad paths, no FUSE, a failed mount or session, an unwritable stats file.
pub fn run(
    config: &MountConfig,
    on_mounted: impl FnOnce(&Path, &Path),
) -> Result<StatsSnapshot, SlowfsError> {
    let backing = check_backing(&config.backing)?;
    let mountpoint = check_mountpoint(&config.mountpoint, &backing)?;
    if let Some(out) = &config.stats_out {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(SlowfsError::StatsOut {
                path: out.clone(),
                source: io::Error::new(io::ErrorKind::NotFound, "its directory does not exist"),
            });
        }
    }
    check_fuse_device()?;

    // Modes from the kernel already carry the caller's umask; ours must not apply twice.
    // SAFETY: umask only sets this process's file mode creation mask.
    unsafe { libc::umask(0) };
    let signals = block_termination_signals()?;

    let stats = Arc::new(Stats::new(config.latency.clone()));
    let mut fs = SlowFs::new(backing.clone(), stats.clone());
    if config.power_loss {
        fs = fs.with_power_loss(Arc::new(PowerLoss::new()));
    }
    if let Some(dir) = &config.op_log {
        let log = OpLog::create(dir).map_err(|source| SlowfsError::Setup {
            what: "creating the op log",
            source,
        })?;
        fs = fs.with_op_log(Arc::new(log));
    }
    fs = fs.with_faults(Arc::new(FaultPlan::new(
        config.fail_fsync,
        config.fail_write,
        config.enospc_write,
    )));
    let fuse_config = fuse_config(config.threads);
    let mut session =
        Session::new(fs, &mountpoint, &fuse_config).map_err(|source| SlowfsError::Mount {
            path: mountpoint.clone(),
            source,
        })?;
    let mut unmounter = session.unmount_callable();

    let watched = mountpoint.clone();
    std::thread::Builder::new()
        .name("slowfs-signals".into())
        .spawn(move || loop {
            let mut sig: libc::c_int = 0;
            // SAFETY: `signals` is an initialised set blocked in every thread of the process.
            if unsafe { libc::sigwait(&signals, &mut sig) } != 0 {
                continue;
            }
            if unmounter.unmount().is_err() {
                // Busy (an open file or a cwd inside): detach now, serve until released.
                let _ = lazy_unmount(&watched);
            }
        })
        .map_err(|source| SlowfsError::Setup {
            what: "starting the signal thread",
            source,
        })?;

    on_mounted(&backing, &mountpoint);
    session.run().map_err(|source| SlowfsError::Session {
        path: mountpoint.clone(),
        source,
    })?;

    let snapshot = stats.snapshot();
    if let Some(out) = &config.stats_out {
        write_stats(out, &snapshot)?;
    }
    Ok(snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_a_mount_point_and_a_temp_dir_is_not() {
        assert!(is_mount_point(Path::new("/")).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let canonical = dir.path().canonicalize().unwrap();
        assert!(!is_mount_point(&canonical).unwrap());
    }

    #[test]
    fn path_checks() {
        let backing = tempfile::tempdir().unwrap();
        let mnt = tempfile::tempdir().unwrap();
        let b = check_backing(backing.path()).unwrap();
        check_mountpoint(mnt.path(), &b).unwrap();
        let missing = backing.path().join("missing");
        let err = check_backing(&missing).unwrap_err().to_string();
        assert!(
            err.contains("does not exist") && err.contains("backing"),
            "{err}"
        );
        let err = check_mountpoint(&missing, &b).unwrap_err().to_string();
        assert!(
            err.contains("does not exist") && err.contains("mount point"),
            "{err}"
        );
        fs::write(mnt.path().join("f"), b"x").unwrap();
        let err = check_mountpoint(mnt.path(), &b).unwrap_err().to_string();
        assert!(err.contains("not empty"), "{err}");
        let err = check_backing(&mnt.path().join("f"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a directory"), "{err}");
        let inner = backing.path().join("inner");
        fs::create_dir(&inner).unwrap();
        let err = check_mountpoint(&inner, &b).unwrap_err().to_string();
        assert!(err.contains("overlaps"), "{err}");
    }
}
