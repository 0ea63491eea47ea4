//! [`MerkError`]: every way a Merk run stops, each with a one-line message.

use std::path::PathBuf;

/// Why a Merk run could not be made or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum MerkError {
    /// The command line asked for something merk-runner does not do.
    #[error("{0}")]
    Usage(String),
    /// Merk's directory holds something already (a run never writes over one).
    #[error("{} is not empty: Merk's store goes into a new or empty directory", path.display())]
    DirNotEmpty {
        /// The directory.
        path: PathBuf,
    },
    /// A file or directory could not be made or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// What was touched.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A Merk call returned an error.
    #[error("merk {operation}: {message}")]
    Merk {
        /// Which call (`open`, `apply`, `commit`, `get`).
        operation: &'static str,
        /// Merk's message.
        message: String,
    },
    /// The workload gave an address that holds no Merk key.
    #[error("address {0} is not a Merk workload address (3e4c00, 16 key bytes, 16 zero bytes)")]
    NotMerkAddress(String),
    /// The workload gave a commit of a shape this runner does not time.
    #[error(
        "a timed commit of {0}, where Merk's workload has insert, update and read batches only"
    )]
    UnexpectedCommit(String),
    /// A read returned something other than the value last written under its key.
    #[error("merk get of key {key}: expected {expected}, got {got}")]
    ReadMismatch {
        /// The key, hex.
        key: String,
        /// The value last written, hex.
        expected: String,
        /// What Merk returned, hex, or `nothing`.
        got: String,
    },
    /// The result could not be written as JSON.
    #[error("encoding the result as JSON: {0}")]
    Encode(String),
    /// A key was read that the run never wrote.
    #[error("key {0} was read but never written by the run")]
    NeverWritten(String),
}

impl MerkError {
    pub(crate) fn merk(operation: &'static str, error: impl std::fmt::Display) -> Self {
        MerkError::Merk {
            operation,
            message: error.to_string(),
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        MerkError::Io {
            path: path.into(),
            source,
        }
    }
}
