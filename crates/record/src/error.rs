//! [`RecordError`]: every way reading, writing or checking a run record (or a sidecar) fails.

use std::path::PathBuf;

/// What went wrong with a record file; each names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read or written.
    #[error("{}: {c_source}", path.display(), c_source = crate::excerpt::clip_quoted(&source.to_string()).into_owned())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not JSON of the expected shape.
    #[error("{}: not a valid {what}: {c_source}", path.display(), c_source = crate::excerpt::clip_quoted(&source.to_string()).into_owned())]
    Json {
        /// The file.
        path: PathBuf,
        /// What the file should have been.
        what: &'static str,
        /// serde_json's reason.
        source: serde_json::Error,
    },
    /// The file names another format.
    #[error("{}: format `{c_found}` is not `{expected}`", path.display(), c_found = crate::excerpt::excerpt(found))]
    Format {
        /// The file.
        path: PathBuf,
        /// The format this reader reads.
        expected: &'static str,
        /// The format the file names.
        found: String,
    },
    /// The file's format version is newer than this reader's.
    #[error(
        "{}: run record version {found} is newer than this build reads ({supported}); \
         update triebench to read it",
        path.display()
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version the file declares.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The record breaks a rule of the format (see [`crate::run_record`]).
    #[error("{}: {c_reason}", path.display(), c_reason = crate::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The rule broken, and where.
        reason: String,
    },
    /// A sidecar (phase file, I/O profile) could not be read or written.
    #[error("{}: {c_reason}", path.display(), c_reason = crate::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    Sidecar {
        /// The file.
        path: PathBuf,
        /// What went wrong, and what to do.
        reason: String,
    },
    /// A result file (`crash.json`, ...) is there but is not one this version can add a run
    /// to (see [`crate::results`]).
    #[error("{} is not a {what} this version can add to ({source})", path.display())]
    Unmergeable {
        /// The file.
        path: PathBuf,
        /// What the file should have been (`crash file`).
        what: &'static str,
        /// serde_json's reason.
        source: serde_json::Error,
    },
    /// A result file is there but cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    ReadResults {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A result file or its table could not be written into its folder.
    #[error("cannot write {}: {source}", dir.display())]
    WriteResults {
        /// The folder.
        dir: PathBuf,
        /// The OS error (or the encoder's, wrapped).
        source: std::io::Error,
    },
    /// A run or command name that cannot name a file and a criterion baseline.
    #[error(
        "invalid run name `{c0}`: use letters, digits, `.`, `_` and `-` only, not starting with \
         `.`, and not `new` or `base` (criterion's own)", c0 = crate::excerpt::excerpt(.0))]
    InvalidName(String),
}
