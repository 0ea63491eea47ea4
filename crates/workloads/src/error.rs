//! Why a workload failed: a check that did not hold, or the trie or store failing under it.

use triebench_kv::KvError;
use triebench_merkle::MerkleError;

/// Why a workload failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// A check that Transact's test makes did not hold.
    #[error("{what}: expected {expected}, got {got}")]
    Mismatch {
        /// What was checked, e.g. "value at 1234 under root db73…".
        what: String,
        /// The expected result.
        expected: String,
        /// What the trie produced.
        got: String,
    },
    /// The trie failed where the scenario expects success.
    #[error("trie error: {0}")]
    Merkle(#[from] MerkleError),
    /// The store failed outside the trie (the workloads inspect the node table directly).
    #[error("storage error: {0}")]
    Storage(#[from] KvError),
    /// A scenario name that does not exist.
    #[error("unknown scenario `{name}`; valid scenarios: {valid}")]
    UnknownScenario {
        /// The name given.
        name: String,
        /// Every valid name, comma-separated.
        valid: String,
    },
}
