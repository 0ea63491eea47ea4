//! `triebench load`'s temporary store directory (when no `--dir` is given), and the removal of
//! those a killed run left behind.
//!
//! The directory is `$TMPDIR/triebench-load-<pid>-<random>`, removed when the run ends. A run
//! killed with SIGKILL cannot remove it, so each run first removes the ones whose owner is
//! gone: a directory (not a symbolic link) with that name, owned by the user running this
//! command, whose `<pid>` is not a live process, and not kept for inspection (a failed run
//! keeps its directory and says so; it is marked with [`KEPT_MARKER`]). Anything else (another
//! user's, a live run's, an older name without a pid) is left alone.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::PlanError;

/// The start of the temporary directory's name.
pub const PREFIX: &str = "triebench-load-";
/// A file in a directory a failed run kept for inspection: never removed automatically.
pub const KEPT_MARKER: &str = "kept-for-inspection";

/// Creates this run's temporary store directory in the system's temporary directory.
pub fn create() -> Result<tempfile::TempDir, PlanError> {
    tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{}-", std::process::id()))
        .tempdir()
        .map_err(PlanError::TempDir)
}

/// Keeps `dir` (a failed run's) for inspection, marked so no later run removes it; returns
/// its path.
pub fn keep(dir: tempfile::TempDir) -> PathBuf {
    let path = dir.keep();
    // Best effort: without the marker a later run may remove it, which is what happened
    // before it was kept.
    let _ = std::fs::write(
        path.join(KEPT_MARKER),
        "kept by a failed `triebench load`\n",
    );
    path
}

/// Removes, from `parent`, the temporary store directories of load runs that are gone (see
/// the module docs); returns those removed. Failures are skipped: this is housekeeping.
pub fn remove_stale(parent: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let me = rustix::process::geteuid().as_raw();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
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

/// The pid in a name `triebench-load-<pid>-<random>`.
fn owner_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(PREFIX)?.split_once('-')?;
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
    fn only_names_with_a_pid_are_a_load_runs() {
        assert_eq!(owner_pid("triebench-load-1234-abc"), Some(1234));
        assert_eq!(owner_pid("triebench-load-abc"), None);
        assert_eq!(owner_pid("triebench-load-12x-abc"), None);
        assert_eq!(owner_pid("triebench-load-1234-"), None);
        assert_eq!(owner_pid("triebench-load-0-abc"), None);
        assert_eq!(owner_pid("other-1234-abc"), None);
    }
}
