//! The power-loss side of the rounds: a slowfs mount in power-loss mode over the directory
//! under test, on a fresh temporary mount point, served by a process of its own (the binary's
//! hidden `crash-mount` command, [`crate::mount`]); the round's child writes through it, and
//! the cut undoes everything not yet fsynced.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use triebench_slowfs::CONTROL_FILE;

use crate::error::CrashError;
use crate::mount::MOUNTED;

/// How long a mount may take to come up or go away.
const MOUNT_TIMEOUT: Duration = Duration::from_secs(20);

/// What the power-cut emulation does not cover, printed and written with every power-loss run.
pub(crate) const POWER_LIMITS: [&str; 3] = [
    "metadata (create, rename, unlink, mkdir) counts as synced at once: a missing directory \
     fsync is not caught",
    "a cut undoes whole unsynced writes, never tears a write or a sector, and never reorders \
     synced data",
    "shared mmap pages (lmdb-async's WRITEMAP, SQLite's -shm) count as written when the kernel \
     writes them back (msync, fsync, or its own writeback); pages still dirty in the kernel at \
     the cut are lost, as on a real power cut",
];

/// A power-loss mount of the directory under test, served by a `triebench crash-mount` process
/// and made and unmade round after round on one temporary mount point: the store must see one
/// path (a Redis store's key namespace is derived from its directory path), and the check after
/// a cut runs on a fresh mount whose unmount keeps everything (no cut).
pub(crate) struct PowerMount {
    server: Option<Child>,
    mountpoint: TempDir,
    backing: PathBuf,
    extra: Vec<std::ffi::OsString>,
}

impl PowerMount {
    /// Prepares a fresh temporary mount point for `backing` (nothing mounted yet).
    pub(crate) fn new(backing: &Path) -> Result<PowerMount, CrashError> {
        if cfg!(not(target_os = "linux")) {
            return Err(CrashError::NoFuse);
        }
        let mountpoint = tempfile::Builder::new()
            .prefix("triebench-powercut-")
            .tempdir()
            .map_err(CrashError::TempDir)?;
        Ok(PowerMount {
            server: None,
            mountpoint,
            backing: backing.to_path_buf(),
            extra: Vec::new(),
        })
    }

    /// Further `crash-mount` flags for every mount from now on (an op log, faults).
    pub(crate) fn set_mount_args(&mut self, args: Vec<std::ffi::OsString>) {
        self.extra = args;
    }

    /// Mounts the backing directory in power-loss mode with nothing unsynced.
    pub(crate) fn mount(&mut self) -> Result<(), CrashError> {
        self.unmount()?;
        let fail = CrashError::Mount;
        let exe = std::env::current_exe().map_err(|e| fail(e.to_string()))?;
        let mut command = Command::new(exe);
        command
            .arg("crash-mount")
            .arg("--backing")
            .arg(&self.backing)
            .arg("--mountpoint")
            .arg(self.mountpoint.path())
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        unmount_with_parent(&mut command);
        let mut server = command.spawn().map_err(|e| fail(e.to_string()))?;
        let Some(stdout) = server.stdout.take() else {
            let _ = server.kill();
            let _ = server.wait();
            return Err(fail("no output pipe".into()));
        };
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        if line.trim() != MOUNTED {
            let _ = server.kill();
            let output = server.wait_with_output().map_err(|e| fail(e.to_string()))?;
            return Err(fail(
                String::from_utf8_lossy(&output.stderr).trim().to_string(),
            ));
        }
        self.server = Some(server);
        Ok(())
    }

    /// The mount server's process id while mounted (a child this process waits for itself).
    pub(crate) fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(Child::id)
    }

    /// Where the store is reached through the mount.
    pub(crate) fn mountpoint(&self) -> &Path {
        self.mountpoint.path()
    }

    /// Cuts power on the mount: returns once every unsynced change is undone.
    pub(crate) fn cut(&self) -> Result<(), CrashError> {
        let control = self.mountpoint.path().join(CONTROL_FILE);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&control)
            .and_then(|mut f| f.write_all(b"cut"))
            .map_err(CrashError::Cut)
    }

    /// Unmounts (SIGTERM to the serving process, which unmounts and exits), if mounted.
    pub(crate) fn unmount(&mut self) -> Result<(), CrashError> {
        let Some(mut server) = self.server.take() else {
            return Ok(());
        };
        // SAFETY: kill(2) on our own child, not yet reaped.
        unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + MOUNT_TIMEOUT;
        loop {
            match server.try_wait() {
                Ok(Some(_)) => return Ok(()),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    let _ = server.kill();
                    let _ = server.wait();
                    return Err(CrashError::Unmount(self.mountpoint.path().to_path_buf()));
                }
            }
        }
    }
}

impl Drop for PowerMount {
    fn drop(&mut self) {
        let _ = self.unmount();
    }
}

/// The mount process gets SIGTERM (and unmounts) when this thread's process goes (Linux).
fn unmount_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid is read before the fork.
    let parent = unsafe { libc::getpid() };
    // SAFETY: between fork and exec only async-signal-safe calls (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}
