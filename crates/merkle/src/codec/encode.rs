//! The canonical encoder: a [`Node`] to bytes, and the pieces the trie uses to re-encode a
//! stored node without decoding it.

use std::collections::BTreeMap;

use super::cbor::{header_len, write_header, MAJOR_BYTES, MAJOR_MAP, MAJOR_TEXT, NULL};

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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::hash::hash_hex;

    /// A node with `value` and `children` (token, hash).
    pub(in crate::codec) fn node(value: Option<&[u8]>, children: &[(&str, &str)]) -> Node {
        Node {
            value: value.map(<[u8]>::to_vec),
            children: children
                .iter()
                .map(|(t, h)| (t.to_string(), h.to_string()))
                .collect(),
        }
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
}
