//! Typed errors of the trie.

use triebench_kv::KvError;

use crate::changelog::ChangeLogError;
use crate::codec::DecodeError;

/// Everything the trie can report. Nothing user input or storage contents can reach panics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MerkleError {
    /// An address (or prefix) that is not lowercase hex of even length.
    #[error("invalid address `{address}`: {reason}")]
    InvalidAddress {
        /// The address given.
        address: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A delete of an address that holds no value at that point of the batch. Nothing of the
    /// batch was written.
    #[error("cannot delete `{address}`: no value is stored at this address")]
    DeleteAbsent {
        /// The address.
        address: String,
    },

    /// A root whose node is not in the store (never committed, pruned, or a virtual root).
    #[error("unknown state root {root}: no such node in the store")]
    UnknownRoot {
        /// The root asked for.
        root: String,
    },

    /// A root or hash that is not 64 lowercase hex characters.
    #[error("invalid hash `{hash}`: expected 64 lowercase hex characters")]
    InvalidHash {
        /// The text given.
        hash: String,
    },

    /// A node referenced by a parent is missing from the store (pruned under a live root, or
    /// a damaged store).
    #[error("node {hash} is missing from the store")]
    MissingNode {
        /// The missing node's hash.
        hash: String,
    },

    /// Bytes that do not decode as a node (see [`codec`](crate::codec)).
    #[error("cannot decode node: {0}")]
    Decode(#[from] DecodeError),

    /// A stored node that does not decode: the store is damaged or not a trie store.
    #[error("stored node {hash} is corrupt: {source}")]
    CorruptNode {
        /// The node's hash (its storage key).
        hash: String,
        /// What is wrong with it.
        #[source]
        source: DecodeError,
    },

    /// A stored change-log entry that does not decode.
    #[error("change log entry of root {root} is corrupt: {source}")]
    CorruptChangeLog {
        /// The root the entry belongs to.
        root: String,
        /// What is wrong with it.
        #[source]
        source: ChangeLogError,
    },

    /// A reference count in `duplicate_log` that is not 8 bytes.
    #[error("reference count of node {hash} is corrupt ({len} bytes, expected 8)")]
    CorruptRefCount {
        /// The node's hash.
        hash: String,
        /// Length found.
        len: usize,
    },

    /// The storage layer failed (including a store opened without the trie's tables).
    #[error(transparent)]
    Storage(#[from] KvError),
}
