//! [`LoadError`]: why a load run could not start or stopped.

use triebench_kv::KvError;
use triebench_merkle::MerkleError;

/// Why a load run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A bad setting (rate, commit size, value sizes, matrix).
    #[error("{0}")]
    Config(String),
    /// The trie failed under the load.
    #[error("trie error under load: {0}")]
    Merkle(#[from] MerkleError),
    /// The store failed under the load.
    #[error("storage error under load: {0}")]
    Storage(#[from] KvError),
    /// A reader did not find a key the writer had committed (a consistency failure).
    #[error("reader found no value at {address} under root {root}, which holds it")]
    MissingKey {
        /// The address read.
        address: String,
        /// The root read at.
        root: String,
    },
    /// A reader or sampler thread panicked.
    #[error("a load thread panicked: {0}")]
    Thread(String),
}
