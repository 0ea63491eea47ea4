//! [`TempStoreDir`]: a command's temporary store directory (`triebench root` and `load` without
//! `--dir`), private to its owner and removed however the run ends but SIGKILL.
//!
//! The directory is `$TMPDIR/<prefix><pid>-<random>`, made with mode 0700 (the store's files in
//! it are 0600: another user can neither list nor read a live store). It is removed when the
//! guard drops, and, once [`TempStoreDir::remove_on_signal`] was called, when the process is
//! stopped by SIGINT (Ctrl-C) or SIGTERM: a watcher thread removes every live temporary store
//! directory and exits with `128 + signal`, as the default action would have ended it. A run
//! killed with SIGKILL cannot remove it, so [`TempStoreDir::remove_stale`] (which each run calls
//! first) removes the ones whose owner is gone: a directory (not a symbolic link) with that
//! name, owned by the user running this command, whose `<pid>` is not a live process, and not
//! kept for inspection ([`TempStoreDir::keep`] marks it with [`KEPT_MARKER`]). Anything else
//! (another user's, a live run's, a name without a pid) is left alone.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use crate::error::{KvError, KvResult};

/// A file in a directory a failed run kept for inspection: never removed automatically.
pub const KEPT_MARKER: &str = "kept-for-inspection";

/// The live temporary store directories, removed by the signal watcher.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Starts the signal watcher once per process.
static WATCHER: Once = Once::new();

/// A private temporary store directory, removed on drop (see the module's notes).
#[derive(Debug)]
pub struct TempStoreDir {
    /// `None` once kept.
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl TempStoreDir {
    /// Creates `<prefix><pid>-<random>` (mode 0700) in the system's temporary directory.
    pub fn create(prefix: &str) -> KvResult<TempStoreDir> {
        Self::create_in(&std::env::temp_dir(), prefix)
    }

    /// [`TempStoreDir::create`] in `parent`.
    pub fn create_in(parent: &Path, prefix: &str) -> KvResult<TempStoreDir> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{prefix}{}-", std::process::id()))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(parent)
            .map_err(|e| KvError::io("create a temporary store directory in", parent, e))?;
        let path = dir.path().to_path_buf();
        lock_live().push(path.clone());
        Ok(TempStoreDir {
            dir: Some(dir),
            path,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes this directory (and every other live one) when the process gets SIGINT or
    /// SIGTERM, then exits with `128 + signal`. For commands without a graceful stop of their
    /// own (`root`); a command that handles those signals itself must not call it.
    pub fn remove_on_signal(&self) -> KvResult<()> {
        let mut result = Ok(());
        WATCHER.call_once(|| {
            use signal_hook::consts::{SIGINT, SIGTERM};
            let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
                Ok(s) => s,
                Err(e) => {
                    result = Err(KvError::io("watch for signals to remove", &self.path, e));
                    return;
                }
            };
            let spawned = std::thread::Builder::new()
                .name("temp-store-signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        for dir in lock_live().iter() {
                            let _ = std::fs::remove_dir_all(dir);
                        }
                        std::process::exit(128 + signal);
                    }
                });
            if let Err(e) = spawned {
                result = Err(KvError::io("watch for signals to remove", &self.path, e));
            }
        });
        result
    }

    /// Keeps the directory (a failed run's, for inspection), marked so no later run removes
    /// it; returns its path.
    pub fn keep(mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
        forget(&self.path);
        // Best effort: without the marker a later run may remove it.
        let _ = std::fs::write(self.path.join(KEPT_MARKER), "kept by a failed run\n");
        self.path.clone()
    }

    /// Removes, from `parent`, the temporary store directories named `<prefix><pid>-...` of
    /// runs that are gone (see the module's notes); returns those removed. Failures are
    /// skipped: this is housekeeping.
    pub fn remove_stale(parent: &Path, prefix: &str) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(parent) else {
            return Vec::new();
        };
        let me = rustix::process::geteuid().as_raw();
        let mut removed = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|n| owner_pid(n, prefix)) else {
                continue;
            };
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_dir()
                || meta.uid() != me
                || pid == std::process::id()
                || is_alive(pid)
                || path.join(KEPT_MARKER).exists()
            {
                continue;
            }
            if std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
        }
        removed
    }
}

impl Drop for TempStoreDir {
    fn drop(&mut self) {
        if self.dir.take().is_some() {
            // The TempDir just dropped removed it; the watcher must not try again.
            forget(&self.path);
        }
    }
}

fn lock_live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

fn forget(path: &Path) {
    lock_live().retain(|p| p != path);
}

/// The pid in a name `<prefix><pid>-<random>`.
fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(prefix)?.split_once('-')?;
    if rest.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|&p| p > 0)
}

/// Whether process `pid` exists (a process of another user counts as alive).
fn is_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::owner_pid;

    #[test]
    fn only_names_with_a_pid_are_a_runs() {
        let p = "triebench-load-";
        assert_eq!(owner_pid("triebench-load-1234-abc", p), Some(1234));
        assert_eq!(owner_pid("triebench-load-abc", p), None);
        assert_eq!(owner_pid("triebench-load-12x-abc", p), None);
        assert_eq!(owner_pid("triebench-load-1234-", p), None);
        assert_eq!(owner_pid("triebench-load-0-abc", p), None);
        assert_eq!(owner_pid("other-1234-abc", p), None);
    }
}
