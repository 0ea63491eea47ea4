//! `triebench load`'s temporary store directory (when no `--dir` is given), and the removal of
//! those a killed run left behind.
//!
//! The directory is `$TMPDIR/triebench-load-<pid>-<random>` (0700; kv's [`TempStoreDir`]),
//! removed when the run ends. A run
//! killed with SIGKILL cannot remove it, so each run first removes the ones whose owner is
//! gone: a directory (not a symbolic link) with that name, owned by the user running this
//! command, whose `<pid>` is not a live process, and not kept for inspection (a failed run
//! keeps its directory and says so; it is marked with kv's `KEPT_MARKER`). Anything else (another
//! user's, a live run's, an older name without a pid) is left alone.

use std::path::{Path, PathBuf};

use triebench_kv::TempStoreDir;

use crate::error::PlanError;

/// The start of the temporary directory's name.
pub const PREFIX: &str = "triebench-load-";

/// Creates this run's temporary store directory (0700) in the system's temporary directory.
pub fn create() -> Result<TempStoreDir, PlanError> {
    TempStoreDir::create(PREFIX).map_err(PlanError::from)
}

/// Keeps `dir` (a failed run's) for inspection, marked so no later run removes it; returns
/// its path.
pub fn keep(dir: TempStoreDir) -> PathBuf {
    dir.keep()
}

/// Removes, from `parent`, the temporary store directories of load runs that are gone (see
/// the module docs); returns those removed. Failures are skipped: this is housekeeping.
pub fn remove_stale(parent: &Path) -> Vec<PathBuf> {
    TempStoreDir::remove_stale(parent, PREFIX)
}
