//! [`ProofError`]: why a proof does not prove what it is claimed to.

use crate::codec::DecodeError;
use crate::excerpt;

/// Why [`verify`](crate::verify) refused a proof, or [`Proof::decode`](crate::Proof::decode)
/// its wire form. Depths count nodes from the root (the root is depth 0).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// The address is not lowercase hex of even length (at most
    /// [`MAX_ADDRESS_LEN`](crate::MAX_ADDRESS_LEN) characters). The message quotes at most
    /// [`EXCERPT_BYTES`](crate::EXCERPT_BYTES) of it.
    #[error("invalid address `{}`: {reason}", excerpt(address))]
    InvalidAddress {
        /// The address given.
        address: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// The root is not 64 lowercase hex characters.
    #[error(
        "invalid state root `{}`: expected 64 lowercase hex characters",
        excerpt(root)
    )]
    InvalidRoot {
        /// The text given.
        root: String,
    },

    /// The proof holds no node.
    #[error("the proof holds no node")]
    Empty,

    /// The first node's hash is not the root: the proof is for another root, or its root
    /// node was altered.
    #[error("the proof is not for root {root}: its first node hashes to {found}")]
    RootMismatch {
        /// The root the proof was checked against.
        root: String,
        /// The hash of the proof's first node.
        found: String,
    },

    /// A node is not the child its parent names for the address's token: the node, or the
    /// hash in its parent, was altered, or the proof follows another address.
    #[error("node {depth} of the proof hashes to {found}, its parent names {expected}")]
    NodeMismatch {
        /// The node's depth.
        depth: usize,
        /// The child hash its parent holds for the address's token.
        expected: String,
        /// The node's own hash.
        found: String,
    },

    /// A node whose hash checks out but whose bytes are not a trie node.
    #[error("node {depth} of the proof is not a trie node: {source}")]
    Malformed {
        /// The node's depth.
        depth: usize,
        /// What is wrong with it.
        #[source]
        source: DecodeError,
    },

    /// The proof stops at a node that still has a child on the address's path: it proves
    /// neither a value nor an absence there.
    #[error("the proof stops at depth {depth}, above the address")]
    Truncated {
        /// Depth of the proof's last node.
        depth: usize,
    },

    /// The proof holds nodes past the point where the address's path ends (at its own node,
    /// or at a node with no child for its next token): it follows another address.
    #[error("the proof holds {extra} node(s) past depth {depth}, where the address's path ends")]
    TrailingNodes {
        /// Depth where the address's path ends.
        depth: usize,
        /// Nodes after it.
        extra: usize,
    },

    /// The address holds a value, but another than the one claimed.
    #[error("`{}` holds another value than the one claimed", excerpt(address))]
    ValueMismatch {
        /// The address.
        address: String,
    },

    /// A value was claimed, but the proof shows the address holds none.
    #[error("`{}` holds no value, but a value was claimed", excerpt(address))]
    ProvedAbsent {
        /// The address.
        address: String,
    },

    /// Absence was claimed, but the proof shows the address holds a value.
    #[error("`{}` holds a value, but its absence was claimed", excerpt(address))]
    ProvedPresent {
        /// The address.
        address: String,
    },

    /// The wire form is not what [`Proof::encode`](crate::Proof::encode) writes.
    #[error("proof encoding: {reason} at byte {at}")]
    BadEncoding {
        /// Offset of the offending item.
        at: usize,
        /// What is wrong there.
        reason: &'static str,
    },
}
