//! Typed errors of the trie.

use triebench_kv::KvError;

use crate::changelog::ChangeLogError;
use crate::codec::DecodeError;

/// The most bytes of an input an error message quotes.
pub const EXCERPT_BYTES: usize = 100;

/// `text` as an error message quotes it: whole when it is at most [`EXCERPT_BYTES`] long, else
/// its first [`EXCERPT_BYTES`] (cut at a character boundary) and how long it was, so a 2 MB
/// bad input does not become a 2 MB message.
pub fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= EXCERPT_BYTES {
        return text.into();
    }
    let mut end = EXCERPT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len()).into()
}

/// Everything the trie can report. Nothing user input or storage contents can reach panics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MerkleError {
    /// An address (or prefix) that is not lowercase hex of even length. The message quotes at
    /// most [`EXCERPT_BYTES`] of it ([`excerpt`]); the field holds it whole.
    #[error("invalid address `{}`: {reason}", excerpt(address))]
    InvalidAddress {
        /// The address given.
        address: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A delete of an address that holds no value at that point of the batch. Nothing of the
    /// batch was written.
    #[error(
        "cannot delete `{}`: no value is stored at this address",
        excerpt(address)
    )]
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

    /// A store written by an older triebench, whose node table is keyed otherwise (layout 1:
    /// 64 hex digits per key). Nothing was read from it as nodes or written to it (see
    /// [`store_layout`](crate::store_layout)).
    #[error(
        "store refused: {found}; this build reads store layout {supported} (nodes keyed by \
         their raw 32-byte hash) and does not convert stores. The store was written by an \
         older triebench: re-create it (delete it and run the fill again, e.g. `triebench \
         grow` or `triebench run` with a new --dir)"
    )]
    OldStoreLayout {
        /// What the store holds, in words.
        found: String,
        /// The layout version this build reads.
        supported: u32,
    },

    /// A store recording a layout version newer than this build reads. Left unchanged.
    #[error(
        "store refused: it records store layout {found}, newer than this build reads \
         ({supported}). It was written by a newer triebench: open it with that build, or \
         re-create it with this one (delete it and run the fill again)"
    )]
    NewerStoreLayout {
        /// The version the store records.
        found: u32,
        /// The layout version this build reads.
        supported: u32,
    },

    /// A layout marker that no triebench writes (not 4 bytes, or an older version number).
    /// Left unchanged.
    #[error(
        "store refused: its layout marker is corrupt (bytes {found}); this build reads store \
         layout {supported}: the store is damaged or not a triebench store, re-create it"
    )]
    CorruptLayoutMarker {
        /// The marker's first bytes, in hex.
        found: String,
        /// The layout version this build reads.
        supported: u32,
    },

    /// The storage layer failed (including a store opened without the trie's tables).
    #[error(transparent)]
    Storage(#[from] KvError),
}
