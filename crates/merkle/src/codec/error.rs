//! Why bytes are not a node: errors of the general decoder, and of the trie's stricter checks of
//! stored nodes (the variants marked "trie nodes only").

/// Why bytes are not a node in canonical encoding. Offsets count from the start of the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ends inside an item.
    #[error("node encoding ends early at byte {at}")]
    UnexpectedEnd {
        /// Offset where more bytes were needed.
        at: usize,
    },
    /// An item of another CBOR type than the format allows here.
    #[error("expected {expected} at byte {at}, found initial byte {found:#04x}")]
    UnexpectedType {
        /// Offset of the item.
        at: usize,
        /// What the format requires here.
        expected: &'static str,
        /// The initial byte found.
        found: u8,
    },
    /// A length written in another form than the canonical (Transact) encoder writes.
    #[error("non-canonical length header at byte {at}")]
    NonCanonicalLength {
        /// Offset of the header.
        at: usize,
    },
    /// The top-level map does not have exactly the two keys `"c"` and `"v"`.
    #[error("node map has {found} entries, the format requires 2 (\"c\" then \"v\")")]
    WrongEntryCount {
        /// Entries announced.
        found: u64,
    },
    /// A top-level key other than the expected one.
    #[error("expected key \"{expected}\" at byte {at}")]
    WrongKey {
        /// Offset of the key.
        at: usize,
        /// The key required here.
        expected: &'static str,
    },
    /// Child tokens not in strictly ascending byte order (unsorted or repeated).
    #[error("child tokens out of order or repeated at byte {at}")]
    UnsortedChildren {
        /// Offset of the offending token.
        at: usize,
    },
    /// A text string that is not UTF-8.
    #[error("text at byte {at} is not valid UTF-8")]
    InvalidUtf8 {
        /// Offset of the text's content.
        at: usize,
    },
    /// Bytes after the end of the node.
    #[error("{extra} trailing bytes after the node, from byte {at}")]
    TrailingBytes {
        /// Offset of the first extra byte.
        at: usize,
        /// How many extra bytes.
        extra: usize,
    },
    /// A child token that is not two lowercase hex characters (trie nodes only).
    #[error("child token at byte {at} is not two lowercase hex characters")]
    InvalidToken {
        /// Offset of the token's content.
        at: usize,
    },
    /// A node deeper than any valid address reaches (trie nodes only): the store links a node
    /// to its own ancestor.
    #[error("node sits {depth} levels deep, beyond the longest valid address")]
    TooDeep {
        /// Depth reached.
        depth: usize,
    },
    /// A child hash that is not 64 lowercase hex characters (trie nodes only).
    #[error("child hash at byte {at} is not 64 lowercase hex characters")]
    InvalidChildHash {
        /// Offset of the hash's content.
        at: usize,
    },
}
