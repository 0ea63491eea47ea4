//! A real slowfs mount for tests: the built binary on a fresh temp mount point over a fresh temp
//! backing directory, unmounted on drop. When FUSE is unavailable the tests skip (print
//! `skipped: <reason>` and return), except under `CI=true`, where they fail.
#![allow(dead_code)]

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use triebench_slowfs::StatsSnapshot;

pub const BIN: &str = env!("CARGO_BIN_EXE_slowfs");
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);

/// The one place that decides between skipping and failing when FUSE is unavailable: prints
/// `skipped: <reason>`, or panics under `CI=true`.
pub fn skip_or_fail(reason: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("FUSE is unavailable under CI=true: {reason}");
    }
    println!("skipped: {reason}");
    eprintln!("skipped: {reason}");
}

/// Why FUSE cannot be used here, if it cannot: no `/dev/fuse` or no permission to open it.
pub fn fuse_unavailable() -> Option<String> {
    match OpenOptions::new().read(true).write(true).open("/dev/fuse") {
        Ok(_) => None,
        Err(e) => Some(format!("cannot open /dev/fuse: {e}")),
    }
}

/// Whether slowfs's error output says the mount was refused for lack of FUSE or permission.
fn is_permission_failure(stderr: &str) -> bool {
    stderr.contains("FUSE is unavailable")
        || stderr.contains("Operation not permitted")
        || stderr.contains("Permission denied")
}

/// Whether `path` (canonical) is a mount point now.
pub fn is_mounted(path: &Path) -> bool {
    triebench_slowfs::mount::is_mount_point(path).unwrap_or(false)
}

/// Unmounts `path`: `fusermount3 -u`, else `umount`, else a lazy `umount -l`.
pub fn unmount(path: &Path) {
    let quiet = |cmd: &mut Command| {
        cmd.stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !quiet(Command::new("fusermount3").arg("-u").arg(path))
        && !quiet(Command::new("umount").arg(path))
    {
        quiet(Command::new("umount").arg("-l").arg(path));
    }
}

/// Spawns the slowfs binary; it gets SIGTERM (and unmounts itself) if the spawning thread
/// dies.
pub fn spawn_slowfs(args: &[String], backing: &Path, mnt: &Path) -> std::io::Result<Child> {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .arg(backing)
        .arg(mnt)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// Waits up to `timeout` for `child` to exit; kills it if it does not. Returns its stderr.
pub fn wait_child(child: &mut Child, timeout: Duration) -> String {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
        }
    }
    let mut err = String::new();
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    err
}

/// Waits until `mnt` is mounted. `Ok(false)` means skip (FUSE refused); panics on other
/// failures with slowfs's stderr.
pub fn wait_mounted(child: &mut Child, mnt: &Path) -> bool {
    // However long mounting takes: a slowfs that neither mounts nor exits is a hang for the test
    // command's timeout (libtest names the test), not a wall-clock bound here.
    loop {
        if is_mounted(mnt) {
            return true;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let stderr = wait_child(child, EXIT_TIMEOUT);
            if is_permission_failure(&stderr) {
                skip_or_fail(&format!("slowfs could not mount: {}", stderr.trim()));
                return false;
            }
            panic!(
                "slowfs exited ({status}) before mounting {}: {stderr}",
                mnt.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads and parses `MOUNT/.slowfs-stats`.
pub fn live_stats(mnt: &Path) -> StatsSnapshot {
    let text = fs::read_to_string(mnt.join(".slowfs-stats")).expect("read .slowfs-stats");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad stats JSON {text:?}: {e}"))
}

/// One slowfs mount owned by a test.
pub struct Mounted {
    child: Option<Child>,
    backing: TempDir,
    /// Holds the mount point directory until after the unmount in `drop`.
    _mnt_dir: TempDir,
    mnt_path: PathBuf,
    out_dir: TempDir,
}

impl Mounted {
    /// Mounts slowfs with `args` (before the two paths; `--stats-out` is added). `None` when
    /// the test should skip.
    pub fn start(args: &[&str]) -> Option<Mounted> {
        if let Some(reason) = fuse_unavailable() {
            skip_or_fail(&reason);
            return None;
        }
        let backing = tempfile::tempdir().expect("backing dir");
        let mnt = tempfile::tempdir().expect("mount point");
        let out_dir = tempfile::tempdir().expect("stats dir");
        let mnt_path = mnt.path().canonicalize().expect("canonical mount point");
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.push("--stats-out".into());
        all.push(out_dir.path().join("stats.json").display().to_string());
        let mut child = spawn_slowfs(&all, backing.path(), &mnt_path).expect("spawn slowfs");
        if !wait_mounted(&mut child, &mnt_path) {
            return None;
        }
        Some(Mounted {
            child: Some(child),
            backing,
            _mnt_dir: mnt,
            mnt_path,
            out_dir,
        })
    }

    /// The mount point (canonical).
    pub fn mnt(&self) -> &Path {
        &self.mnt_path
    }

    /// The backing directory.
    pub fn backing(&self) -> &Path {
        self.backing.path()
    }

    /// Writes `line` to the mount's control file (power-loss mode): `cut`, or `mark LABEL`
    /// to put a mark in the op log.
    pub fn control(&self, line: &str) {
        OpenOptions::new()
            .write(true)
            .open(self.mnt_path.join(triebench_slowfs::CONTROL_FILE))
            .and_then(|mut c| c.write_all(line.as_bytes()))
            .unwrap_or_else(|e| panic!("control write `{line}`: {e}"));
    }

    /// The current counters from `.slowfs-stats`.
    pub fn live_stats(&self) -> StatsSnapshot {
        live_stats(&self.mnt_path)
    }

    /// Unmounts, waits for slowfs to exit, and returns its `--stats-out` JSON and stderr.
    pub fn finish(mut self) -> (StatsSnapshot, String) {
        let stderr = self.stop();
        let path = self.out_dir.path().join("stats.json");
        let text = fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "no --stats-out file {}: {e}; stderr: {stderr}",
                path.display()
            )
        });
        let snap = serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON {text:?}: {e}"));
        (snap, stderr)
    }

    fn stop(&mut self) -> String {
        let Some(mut child) = self.child.take() else {
            return String::new();
        };
        unmount(&self.mnt_path);
        let stderr = wait_child(&mut child, EXIT_TIMEOUT);
        if is_mounted(&self.mnt_path) {
            unmount(&self.mnt_path);
        }
        stderr
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Opens `path` and drops its cached pages, so the next read goes to the filesystem.
pub fn open_uncached(path: &Path) -> File {
    let f = File::open(path).expect("open");
    // SAFETY: valid descriptor; fadvise only drops clean cached pages.
    let rc = unsafe {
        libc::posix_fadvise(
            std::os::fd::AsRawFd::as_raw_fd(&f),
            0,
            0,
            libc::POSIX_FADV_DONTNEED,
        )
    };
    assert_eq!(rc, 0, "posix_fadvise");
    f
}
