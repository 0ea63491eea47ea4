//! The node format, byte for byte: a canonical CBOR encoder and a strict decoder.
//!
//! A node is a CBOR map with exactly two text keys, in this order:
//!
//! * `"c"`: a map from child token (text) to child hash (text), entries in ascending byte
//!   order of the token;
//! * `"v"`: the node's value as a byte string, or CBOR null (`0xf6`) when it has none.
//!
//! Length headers are CBOR's, with one quirk of the encoder Transact uses, applied to every
//! header (maps, text and byte strings alike): a length in 65,536..=1,048,575 is written in the
//! 8-byte form (`0x1b`-style, e.g. `0x5b` for a byte string) instead of the 4-byte form.
//! Lengths from 1,048,576 to `u32::MAX` use the 4-byte form; below 65,536 the shortest form.
//!
//! [`decode`] accepts exactly what [`encode`] writes (the only encoding Transact and this crate
//! produce) and reports anything else as a [`DecodeError`]; it never panics, whatever the input.
//!
//! ```
//! use triebench_merkle::codec::{self, Node};
//!
//! let mut node = Node { value: Some(b"hello".to_vec()), ..Node::default() };
//! node.children.insert("ab".into(), "123".into());
//! let bytes = codec::encode(&node);
//! assert_eq!(hex::encode(&bytes), "a26163a16261626331323361764568656c6c6f");
//! assert_eq!(codec::decode(&bytes)?, node);
//! # Ok::<(), codec::DecodeError>(())
//! ```

use std::collections::BTreeMap;

pub use crate::hash::{hash_hex, node_hash};

/// CBOR major type of unsigned integers (unused by nodes; listed for the header table).
const MAJOR_BYTES: u8 = 2;
const MAJOR_TEXT: u8 = 3;
const MAJOR_MAP: u8 = 5;
/// CBOR `null`.
pub(crate) const NULL: u8 = 0xf6;
/// The two-entry map header plus the `"c"` key: every node starts with these bytes.
pub(crate) const NODE_PREFIX: [u8; 3] = [0xa2, 0x61, b'c'];
/// The `"v"` key.
pub(crate) const VALUE_KEY: [u8; 2] = [0x61, b'v'];

/// A decoded node in its general form: any text tokens and any text hashes.
///
/// The trie itself only ever stores two-character lowercase hex tokens and 64-character
/// lowercase hex hashes, but the format allows any text, and so does this type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    /// The value stored at this node's address, if any.
    pub value: Option<Vec<u8>>,
    /// Children: token -> child hash. `BTreeMap` keeps them in the format's (byte) order.
    pub children: BTreeMap<String, String>,
}

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

/// Appends a CBOR header of major type `major` announcing `len`, in the canonical form
/// (including the 65,536..=1,048,575 quirk).
pub(crate) fn write_header(out: &mut Vec<u8>, major: u8, len: u64) {
    let m = major << 5;
    match len {
        0..=23 => out.push(m | len as u8),
        24..=0xff => out.extend_from_slice(&[m | 24, len as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        // The quirk: Transact's encoder skips the 4-byte form for these lengths.
        0x1_0000..=0xf_ffff => {
            out.push(m | 27);
            out.extend_from_slice(&len.to_be_bytes());
        }
        0x10_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend_from_slice(&(len as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend_from_slice(&len.to_be_bytes());
        }
    }
}

/// Size in bytes of the canonical header for `len`.
pub(crate) fn header_len(len: u64) -> usize {
    match len {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xf_ffff => 9,
        0x10_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Appends a text string item.
pub(crate) fn write_text(out: &mut Vec<u8>, text: &[u8]) {
    write_header(out, MAJOR_TEXT, text.len() as u64);
    out.extend_from_slice(text);
}

/// Appends the children map header for `count` children (after [`NODE_PREFIX`]).
pub(crate) fn write_children_header(out: &mut Vec<u8>, count: usize) {
    write_header(out, MAJOR_MAP, count as u64);
}

/// Appends the `"v"` key and the value (byte string or null): the tail of every node.
pub(crate) fn write_value(out: &mut Vec<u8>, value: Option<&[u8]>) {
    out.extend_from_slice(&VALUE_KEY);
    match value {
        Some(v) => {
            write_header(out, MAJOR_BYTES, v.len() as u64);
            out.extend_from_slice(v);
        }
        None => out.push(NULL),
    }
}

/// Encodes a node canonically.
pub fn encode(node: &Node) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(node));
    out.extend_from_slice(&NODE_PREFIX);
    write_children_header(&mut out, node.children.len());
    for (token, hash) in &node.children {
        write_text(&mut out, token.as_bytes());
        write_text(&mut out, hash.as_bytes());
    }
    write_value(&mut out, node.value.as_deref());
    out
}

/// The exact length of [`encode`]'s output for `node`.
pub fn encoded_len(node: &Node) -> usize {
    let children: usize = node
        .children
        .iter()
        .map(|(t, h)| header_len(t.len() as u64) + t.len() + header_len(h.len() as u64) + h.len())
        .sum();
    let value = match &node.value {
        Some(v) => header_len(v.len() as u64) + v.len(),
        None => 1,
    };
    NODE_PREFIX.len() + header_len(node.children.len() as u64) + children + VALUE_KEY.len() + value
}

/// Decodes a node, accepting only the canonical encoding.
pub fn decode(bytes: &[u8]) -> Result<Node, DecodeError> {
    let raw = RawNode::parse(bytes)?;
    let mut children = BTreeMap::new();
    for child in &raw.children {
        let token = utf8(child.token, child.token_at)?;
        let hash = utf8(child.hash, child.hash_at)?;
        children.insert(token.to_owned(), hash.to_owned());
    }
    Ok(Node {
        value: raw.value.map(<[u8]>::to_vec),
        children,
    })
}

fn utf8(bytes: &[u8], at: usize) -> Result<&str, DecodeError> {
    std::str::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 { at })
}

/// One child entry of a [`RawNode`], borrowed from the encoding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawChild<'a> {
    pub token: &'a [u8],
    pub token_at: usize,
    pub hash: &'a [u8],
    pub hash_at: usize,
}

/// A validated node borrowed from its encoding: no copies, no UTF-8 conversion.
#[derive(Debug)]
pub(crate) struct RawNode<'a> {
    pub children: Vec<RawChild<'a>>,
    pub value: Option<&'a [u8]>,
}

impl<'a> RawNode<'a> {
    /// Parses and fully validates a canonical node (structure, order, canonical headers,
    /// no trailing bytes). Text contents are not checked for UTF-8 here.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut cur = Cursor::new(bytes);
        let count = cur.open_children()?;
        // Each entry needs at least two bytes: never trust `count` for allocation.
        let mut children = Vec::with_capacity(count.min(cur.remaining() / 2));
        let mut previous: Option<&[u8]> = None;
        for _ in 0..count {
            let child = cur.child()?;
            if previous.is_some_and(|p| p >= child.token) {
                return Err(DecodeError::UnsortedChildren { at: child.token_at });
            }
            previous = Some(child.token);
            children.push(child);
        }
        let value = cur.value()?;
        cur.finish()?;
        Ok(RawNode { children, value })
    }
}

/// A bounds-checked reader over an encoding.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.buf.len())
            .ok_or(DecodeError::UnexpectedEnd { at: self.buf.len() })?;
        let slice = &self.buf[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    pub(crate) fn byte(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    /// Reads a header of the expected major type and returns its length, insisting on the
    /// canonical form.
    pub(crate) fn header(&mut self, major: u8, expected: &'static str) -> Result<u64, DecodeError> {
        let at = self.pos;
        let initial = self.byte()?;
        if initial >> 5 != major {
            return Err(DecodeError::UnexpectedType {
                at,
                expected,
                found: initial,
            });
        }
        let info = initial & 0x1f;
        let len = match info {
            0..=23 => u64::from(info),
            24 => u64::from(self.byte()?),
            25 => {
                let b = self.take(2)?;
                u64::from(u16::from_be_bytes([b[0], b[1]]))
            }
            26 => {
                let b = self.take(4)?;
                u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            }
            27 => {
                let b = self.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                u64::from_be_bytes(a)
            }
            _ => return Err(DecodeError::NonCanonicalLength { at }),
        };
        if self.pos - at != header_len(len) {
            return Err(DecodeError::NonCanonicalLength { at });
        }
        Ok(len)
    }

    /// Reads a text or byte string of the given major type and returns (content, offset).
    pub(crate) fn string(
        &mut self,
        major: u8,
        expected: &'static str,
    ) -> Result<(&'a [u8], usize), DecodeError> {
        let len = self.header(major, expected)?;
        let at = self.pos;
        let len = usize::try_from(len).map_err(|_| DecodeError::UnexpectedEnd { at })?;
        Ok((self.take(len)?, at))
    }

    pub(crate) fn key(&mut self, key: &'static str) -> Result<(), DecodeError> {
        let at = self.pos;
        let (text, _) = self.string(MAJOR_TEXT, "a text key")?;
        if text != key.as_bytes() {
            return Err(DecodeError::WrongKey { at, expected: key });
        }
        Ok(())
    }

    /// Reads the node map header, the `"c"` key and the children map header.
    pub(crate) fn open_children(&mut self) -> Result<usize, DecodeError> {
        let entries = self.header(MAJOR_MAP, "the node map")?;
        if entries != 2 {
            return Err(DecodeError::WrongEntryCount { found: entries });
        }
        self.key("c")?;
        let at = self.pos;
        let count = self.header(MAJOR_MAP, "the children map")?;
        usize::try_from(count).map_err(|_| DecodeError::UnexpectedEnd { at })
    }

    pub(crate) fn child(&mut self) -> Result<RawChild<'a>, DecodeError> {
        let (token, token_at) = self.string(MAJOR_TEXT, "a child token (text)")?;
        let (hash, hash_at) = self.string(MAJOR_TEXT, "a child hash (text)")?;
        Ok(RawChild {
            token,
            token_at,
            hash,
            hash_at,
        })
    }

    /// Reads the `"v"` key and the value (byte string or null).
    pub(crate) fn value(&mut self) -> Result<Option<&'a [u8]>, DecodeError> {
        self.key("v")?;
        let at = self.pos;
        match self.buf.get(at) {
            Some(&NULL) => {
                self.pos += 1;
                Ok(None)
            }
            Some(_) => Ok(Some(self.string(MAJOR_BYTES, "a byte string or null")?.0)),
            None => Err(DecodeError::UnexpectedEnd { at }),
        }
    }

    pub(crate) fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(DecodeError::TrailingBytes {
                at: self.pos,
                extra,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(value: Option<&[u8]>, children: &[(&str, &str)]) -> Node {
        Node {
            value: value.map(<[u8]>::to_vec),
            children: children
                .iter()
                .map(|(t, h)| (t.to_string(), h.to_string()))
                .collect(),
        }
    }

    #[test]
    fn design_encoding_example_byte_for_byte() {
        let n = node(Some(b"hello"), &[("ab", "123")]);
        let bytes = encode(&n);
        assert_eq!(
            hex::encode(&bytes),
            "a26163a16261626331323361764568656c6c6f"
        );
        assert_eq!(decode(&bytes), Ok(n));
    }

    #[test]
    fn transact_decoding_example() {
        let bytes = hex::decode("a26163a162303063616263617647676f6f64627965").unwrap();
        assert_eq!(decode(&bytes), Ok(node(Some(b"goodbye"), &[("00", "abc")])));
    }

    #[test]
    fn empty_node_and_null_value() {
        let bytes = encode(&Node::default());
        assert_eq!(bytes, [0xa2, 0x61, 0x63, 0xa0, 0x61, 0x76, 0xf6]);
        assert_eq!(
            hash_hex(&bytes),
            "708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6"
        );
    }

    #[test]
    fn children_are_written_in_byte_order() {
        let n = node(None, &[("ff", "x"), ("0a", "y"), ("10", "z")]);
        let bytes = encode(&n);
        let text = String::from_utf8_lossy(&bytes);
        let (a, b, c) = (
            text.find("0a").unwrap(),
            text.find("10").unwrap(),
            text.find("ff").unwrap(),
        );
        assert!(a < b && b < c);
    }

    #[test]
    fn length_headers_follow_the_quirk() {
        let cases: &[(u64, &[u8])] = &[
            (0, &[0x40]),
            (23, &[0x57]),
            (24, &[0x58, 24]),
            (255, &[0x58, 0xff]),
            (256, &[0x59, 0x01, 0x00]),
            (65_535, &[0x59, 0xff, 0xff]),
            (65_536, &[0x5b, 0, 0, 0, 0, 0, 1, 0, 0]),
            (1_048_575, &[0x5b, 0, 0, 0, 0, 0, 0x0f, 0xff, 0xff]),
            (1_048_576, &[0x5a, 0, 0x10, 0, 0]),
            (u64::from(u32::MAX), &[0x5a, 0xff, 0xff, 0xff, 0xff]),
            (u64::from(u32::MAX) + 1, &[0x5b, 0, 0, 0, 1, 0, 0, 0, 0]),
        ];
        for &(len, expected) in cases {
            let mut out = Vec::new();
            write_header(&mut out, MAJOR_BYTES, len);
            assert_eq!(out, expected, "length {len}");
            assert_eq!(header_len(len), expected.len(), "length {len}");
        }
        // The same quirk applies to text strings and maps.
        let mut out = Vec::new();
        write_header(&mut out, MAJOR_TEXT, 70_000);
        assert_eq!(out[0], 0x7b);
        out.clear();
        write_header(&mut out, MAJOR_MAP, 70_000);
        assert_eq!(out[0], 0xbb);
    }

    #[test]
    fn quirk_lengths_round_trip_and_4_byte_form_is_rejected() {
        for len in [65_535usize, 65_536, 1_048_575, 1_048_576] {
            let n = node(Some(&vec![b'x'; len]), &[]);
            let bytes = encode(&n);
            assert_eq!(bytes.len(), encoded_len(&n));
            assert_eq!(decode(&bytes).as_ref(), Ok(&n), "length {len}");
        }
        // 65,536 in the standard 4-byte form is not what Transact writes.
        let mut bytes = vec![0xa2, 0x61, 0x63, 0xa0, 0x61, 0x76, 0x5a, 0, 1, 0, 0];
        bytes.extend(vec![b'x'; 65_536]);
        assert_eq!(
            decode(&bytes),
            Err(DecodeError::NonCanonicalLength { at: 6 })
        );
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let good = encode(&node(Some(b"v"), &[("ab", "h1"), ("cd", "h2")]));
        assert!(matches!(
            decode(&[]),
            Err(DecodeError::UnexpectedEnd { .. })
        ));
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "prefix of {cut} bytes");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(matches!(
            decode(&trailing),
            Err(DecodeError::TrailingBytes { extra: 1, .. })
        ));
        // "v" before "c".
        let swapped = hex::decode("a26176f66163a0").unwrap();
        assert!(matches!(
            decode(&swapped),
            Err(DecodeError::WrongKey { .. })
        ));
        // Three entries.
        assert!(matches!(
            decode(&[0xa3]),
            Err(DecodeError::WrongEntryCount { found: 3 })
        ));
        // Unsorted and repeated tokens.
        let unsorted = hex::decode("a26163a2626364613162616261326176f6").unwrap();
        assert!(matches!(
            decode(&unsorted),
            Err(DecodeError::UnsortedChildren { .. })
        ));
        let repeated = hex::decode("a26163a2626162613162616261326176f6").unwrap();
        assert!(matches!(
            decode(&repeated),
            Err(DecodeError::UnsortedChildren { .. })
        ));
        // Non-minimal header (24 written with one extra byte for 5).
        let long_form = hex::decode("b8026163a06176f6").unwrap();
        assert!(matches!(
            decode(&long_form),
            Err(DecodeError::NonCanonicalLength { .. })
        ));
        // Indefinite-length map.
        assert!(matches!(
            decode(&[0xbf]),
            Err(DecodeError::NonCanonicalLength { .. })
        ));
        // Value of the wrong type (an integer).
        let int_value = hex::decode("a26163a0617601").unwrap();
        assert!(matches!(
            decode(&int_value),
            Err(DecodeError::UnexpectedType { .. })
        ));
        // Invalid UTF-8 in a token.
        let bad_utf8 = hex::decode("a26163a162ff00616861766a").unwrap();
        assert!(decode(&bad_utf8).is_err());
        // A huge announced length must not allocate or panic.
        let huge = hex::decode("a26163bb7fffffffffffffff").unwrap();
        assert!(decode(&huge).is_err());
    }
}
