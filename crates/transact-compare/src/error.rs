//! Errors of the Transact comparator.

/// Why opening or driving a Transact store failed.
#[derive(Debug, thiserror::Error)]
pub enum TransactError {
    /// Transact could not open the store (its database, migrations or server).
    #[error("opening {implementation}: {message}")]
    Open {
        /// The implementation id, e.g. `transact-0.4.7:lmdb`.
        implementation: String,
        /// Transact's (or the server fixture's) message.
        message: String,
    },
    /// A Transact call (commit, compute, get, prune) returned an error.
    #[error("transact {operation}: {message}")]
    State {
        /// Which call.
        operation: &'static str,
        /// Transact's message.
        message: String,
    },
    /// A scenario saw something other than what Transact's own test asserts.
    #[error("{what}: expected {expected}, got {actual}")]
    Mismatch {
        /// What was checked.
        what: String,
        /// What the scenario expects.
        expected: String,
        /// What Transact returned.
        actual: String,
    },
    /// An implementation or scenario name nobody knows.
    #[error("unknown {kind} `{name}`; valid: {valid}")]
    Unknown {
        /// `implementation` or `scenario`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// A SmallBank run on a Transact state (`transact-runner smallbank`) failed.
    #[error("{0}")]
    Smallbank(#[from] triebench_smallbank::SmallbankError),
    /// A scratch directory could not be made.
    #[error("scratch directory: {0}")]
    Io(#[from] std::io::Error),
}

impl TransactError {
    /// A [`TransactError::State`] from any displayable Transact error.
    pub fn state(operation: &'static str, err: impl std::fmt::Display) -> Self {
        TransactError::State {
            operation,
            message: err.to_string(),
        }
    }
}
