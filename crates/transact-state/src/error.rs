//! [`OpenError`]: why a state could not be opened.

use triebench_kv::KvError;
use triebench_merkle::MerkleError;

/// Why [`open`](crate::open) failed, per cause.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The profile name is unknown or its backend is not compiled in, the directory cannot be
    /// used, or the store or its server did not open (the message says which and what to do).
    #[error(transparent)]
    Store(#[from] KvError),
    /// The store opened but the trie could not be set up in it (the empty root could not be
    /// written, or the store lacks the trie's tables).
    #[error(transparent)]
    Trie(#[from] MerkleError),
}
