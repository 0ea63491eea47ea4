//! The errors of the filesystem lab's measurements, each saying what to do.

use std::path::PathBuf;

use triebench_kv::{KvError, Profile};

use triebench_workloads::{Scenario, WorkloadError};

/// Everything that stops an I/O profile or a latency probe.
#[derive(Debug, thiserror::Error)]
pub enum IoLabError {
    /// The directory is not a slowfs mount (no live counters file).
    #[error(
        "{} is not a slowfs mount (cannot read {}: {reason}); mount one with \
         `slowfs --profile none BACKING MOUNT` or `scripts/fs-lab.sh up` (its `iolab` mount)",
        dir.display(),
        file.display()
    )]
    NotSlowfs {
        /// The directory given.
        dir: PathBuf,
        /// The counters file looked for.
        file: PathBuf,
        /// Why it could not be read or parsed.
        reason: String,
    },
    /// A filesystem operation of the probe or the profile failed.
    #[error("{what} in {}: {source}", dir.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The directory under test.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A backend profile could not be opened.
    #[error(transparent)]
    Backend(#[from] KvError),
    /// A scenario failed on the mount.
    #[error("scenario {scenario} on {profile}: {source}")]
    Scenario {
        /// The scenario.
        scenario: &'static str,
        /// The backend profile.
        profile: String,
        /// What went wrong.
        source: WorkloadError,
    },
    /// A result file could not be read or written.
    #[error("{}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

impl IoLabError {
    /// `scenario`'s run on `profile` failed with `source`.
    pub fn scenario(scenario: Scenario, profile: Profile, source: WorkloadError) -> Self {
        IoLabError::Scenario {
            scenario: scenario.name(),
            profile: profile.name().to_string(),
            source,
        }
    }
}
