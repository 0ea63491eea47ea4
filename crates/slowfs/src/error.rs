//! Errors of setting up and running a slowfs mount.

use std::io;
use std::path::PathBuf;

/// Why slowfs could not start, mount, or finish cleanly. Each message names the path and the
/// cause, for printing as the single line of a failed `slowfs` run.
#[derive(Debug, thiserror::Error)]
pub enum SlowfsError {
    /// `--profile` named no known profile.
    #[error("unknown profile `{name}` (known: {known})")]
    UnknownProfile {
        /// The name given.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// A delay override was negative or not a finite number.
    #[error("--{class}-us must be a finite number >= 0, got {value}")]
    BadDelay {
        /// The class of the override.
        class: &'static str,
        /// The value given.
        value: f64,
    },
    /// The backing directory is missing or not a directory.
    #[error("backing directory {}: {reason}", path.display())]
    Backing {
        /// The path given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The mount point is missing, not an empty directory, or already a mount point.
    #[error("mount point {}: {reason}", path.display())]
    MountPoint {
        /// The path given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The kernel's FUSE device is missing or cannot be opened.
    #[error("FUSE is unavailable: {reason}")]
    NoFuse {
        /// What is wrong (missing device, permission).
        reason: String,
    },
    /// The mount itself failed.
    #[error("mounting on {}: {source}", path.display())]
    Mount {
        /// The mount point.
        path: PathBuf,
        /// The error from the mount.
        source: io::Error,
    },
    /// The FUSE session ended with an error.
    #[error("FUSE session on {}: {source}", path.display())]
    Session {
        /// The mount point.
        path: PathBuf,
        /// The error the session loop returned.
        source: io::Error,
    },
    /// The stats file could not be written.
    #[error("writing stats to {}: {source}", path.display())]
    StatsOut {
        /// The `--stats-out` path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Another system call failed while setting up (signals, threads).
    #[error("{what}: {source}")]
    Setup {
        /// What was being done.
        what: &'static str,
        /// The error.
        source: io::Error,
    },
}
