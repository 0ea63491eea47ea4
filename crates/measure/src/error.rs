//! [`MeasureError`]: everything that stops a measurement, each saying what to do.

use std::path::PathBuf;

use triebench_kv::{KvError, Profile};

use triebench_workloads::{Scenario, WorkloadError};

/// Everything that stops a measurement: a headline, a phase breakdown, an I/O profile, a
/// filesystem capture or a latency probe.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
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
    /// The directory whose filesystem should be captured is not usable.
    #[error("cannot inspect directory {}: {reason}; pass an existing directory (the TMPDIR the benches used)", dir.display())]
    FsProbe {
        /// The directory.
        dir: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A run record or sidecar could not be written, or a run name is unusable.
    #[error(transparent)]
    Record(#[from] triebench_record::RecordError),
    /// The trie failed during a growth run (fill, commit or read).
    #[error("trie: {0}")]
    Trie(#[from] triebench_merkle::MerkleError),
    /// An engine failed, or its roots differ from its reference's (`triebench engines`).
    #[error(transparent)]
    Engine(#[from] triebench_engines::EngineError),
    /// An engine read or committed something other than one of Transact's scenarios expects
    /// (`triebench engines`; `engine_scenarios`).
    #[error("{engine}, scenario {scenario}: {what}")]
    EngineScenario {
        /// The engine.
        engine: &'static str,
        /// The scenario.
        scenario: &'static str,
        /// What differed.
        what: String,
    },
    /// A field workload read a leaf it wrote and found none (the store lost it).
    #[error("field workload {workload}: leaf {address}, written by the run, reads as absent")]
    FieldRead {
        /// The workload.
        workload: String,
        /// The address read.
        address: String,
    },
    /// `merk-runner`, Merk's own code on a `merk` field run's commits, did not give its figures.
    #[error("Merk's side ({}): {what}", runner.display())]
    MerkRunner {
        /// The runner started.
        runner: PathBuf,
        /// What went wrong, with what it said.
        what: String,
    },
    /// Merk's side ran other commits than ours (the digests over them differ): the two
    /// programs disagree on the workload, so their figures do not stand side by side.
    #[error(
        "Merk's side ran other commits than ours: SHA-256 {merk} there, {ours} here; rebuild          merk-runner from this checkout"
    )]
    MerkCommitsDiffer {
        /// Ours.
        ours: String,
        /// Merk's side's.
        merk: String,
    },
    /// A bounded run's memory cgroup could not be set up.
    #[error(transparent)]
    Cgroup(#[from] crate::mem_cgroup::CgroupError),
    /// A result file could not be read or written.
    /// An option the caller gave cannot be used (a directory that cannot be made or written,
    /// an unknown profile, a value out of range): the message names the option.
    #[error("{0}")]
    Usage(String),
    /// The user stopped the measurement (Ctrl-C, SIGTERM); the message says what was kept.
    #[error("{0}")]
    Interrupted(String),
    #[error("{}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

impl MeasureError {
    /// `scenario`'s run on `profile` failed with `source`.
    pub fn scenario(scenario: Scenario, profile: Profile, source: WorkloadError) -> Self {
        MeasureError::Scenario {
            scenario: scenario.name(),
            profile: profile.name().to_string(),
            source,
        }
    }
}
