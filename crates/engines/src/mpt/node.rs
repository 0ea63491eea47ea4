//! The MPT's nodes: their in-memory form ([`Node`]), their RLP encoding (Ethereum's yellow
//! paper, appendix D) and its decoding, the hex-prefix ("compact") path encoding, Keccak-256.

use std::collections::BTreeMap;

use alloy_rlp::{Encodable, Header, EMPTY_STRING_CODE};
use sha3::{Digest, Keccak256};

use crate::EngineError;

/// The engine's name, as errors show it.
pub(crate) const NAME: &str = "eth-mpt";

/// A node's hash: Keccak-256 of its RLP encoding.
pub(crate) type Hash = [u8; 32];

/// The empty trie's root: Keccak-256 of the RLP empty string (`0x80`).
pub const EMPTY_ROOT: Hash = [
    0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
    0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
];

/// Keccak-256 of `bytes`.
pub fn keccak256(bytes: &[u8]) -> Hash {
    Keccak256::digest(bytes).into()
}

/// A node. Paths are nibbles (0-15), the key's bytes high nibble first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Node {
    /// No node (an empty trie, an empty branch slot).
    #[default]
    Empty,
    /// The rest of a key's path, and its value (never empty: an empty value is absence).
    Leaf { path: Vec<u8>, value: Vec<u8> },
    /// A shared, non-empty run of path, then one child (a branch).
    Extension { path: Vec<u8>, child: Box<Node> },
    /// Sixteen children by the next nibble, and the value of a key that ends here.
    Branch {
        children: Box<[Node; 16]>,
        value: Option<Vec<u8>>,
    },
    /// A stored node, named by its hash, not read yet.
    Hash(Hash),
}

impl Node {
    /// A branch with no children and `value`.
    pub(crate) fn branch(value: Option<Vec<u8>>) -> Node {
        Node::Branch {
            children: Box::new(std::array::from_fn(|_| Node::Empty)),
            value,
        }
    }

    /// `child` under `path`: the child itself for an empty path, else an extension.
    pub(crate) fn under(path: &[u8], child: Node) -> Node {
        if path.is_empty() {
            child
        } else {
            Node::Extension {
                path: path.to_vec(),
                child: Box::new(child),
            }
        }
    }
}

/// A key's bytes as nibbles.
pub(crate) fn nibbles(key: &[u8]) -> Vec<u8> {
    key.iter().flat_map(|b| [b >> 4, b & 0x0f]).collect()
}

/// The hex-prefix encoding of a path: a flag nibble (2 for a leaf, +1 for an odd length), a
/// padding nibble for an even length, then the path, two nibbles a byte.
fn compact(path: &[u8], leaf: bool) -> Vec<u8> {
    let flag = if leaf { 2 } else { 0 } + (path.len() % 2) as u8;
    let mut out = Vec::with_capacity(path.len() / 2 + 1);
    let rest = if path.len() % 2 == 1 {
        out.push(flag << 4 | path[0]);
        &path[1..]
    } else {
        out.push(flag << 4);
        path
    };
    out.extend(rest.chunks_exact(2).map(|p| p[0] << 4 | p[1]));
    out
}

/// A hex-prefix encoded path: its nibbles and whether it ends a leaf.
fn from_compact(bytes: &[u8]) -> Result<(Vec<u8>, bool), EngineError> {
    let Some((&first, rest)) = bytes.split_first() else {
        return Err(corrupt("an empty path"));
    };
    let flag = first >> 4;
    if flag > 3 {
        return Err(corrupt("a path flag above 3"));
    }
    let mut path = Vec::with_capacity(rest.len() * 2 + 1);
    if flag & 1 == 1 {
        path.push(first & 0x0f);
    } else if first & 0x0f != 0 {
        return Err(corrupt("an even path with a non-zero padding nibble"));
    }
    path.extend(nibbles(rest));
    Ok((path, flag & 2 == 2))
}

pub(crate) fn corrupt(message: &str) -> EngineError {
    EngineError::Corrupt {
        engine: NAME,
        what: "node",
        message: message.to_string(),
    }
}

/// The RLP encoding of `node` (never [`Node::Hash`] or [`Node::Empty`], which are references,
/// not encodings; they encode as their reference). Children whose encoding is 32 bytes or more
/// are hashed, and their encodings go into `stored`; shorter ones are inlined.
pub(crate) fn encode(node: &Node, stored: &mut BTreeMap<Hash, Vec<u8>>) -> Vec<u8> {
    let mut payload = Vec::new();
    match node {
        Node::Empty | Node::Hash(_) => return reference(node, stored),
        Node::Leaf { path, value } => {
            compact(path, true).as_slice().encode(&mut payload);
            value.as_slice().encode(&mut payload);
        }
        Node::Extension { path, child } => {
            compact(path, false).as_slice().encode(&mut payload);
            payload.extend(reference(child, stored));
        }
        Node::Branch { children, value } => {
            for child in children.iter() {
                payload.extend(reference(child, stored));
            }
            match value {
                Some(v) => v.as_slice().encode(&mut payload),
                None => payload.push(EMPTY_STRING_CODE),
            }
        }
    }
    let mut out = Vec::with_capacity(payload.len() + 3);
    Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.extend(payload);
    out
}

/// How a parent refers to `node`: the empty string for none, its encoding inline if shorter
/// than 32 bytes, else its hash as a 32-byte string (and the encoding goes into `stored`).
fn reference(node: &Node, stored: &mut BTreeMap<Hash, Vec<u8>>) -> Vec<u8> {
    match node {
        Node::Empty => vec![EMPTY_STRING_CODE],
        Node::Hash(hash) => hash_reference(hash),
        _ => {
            let encoded = encode(node, stored);
            if encoded.len() < 32 {
                encoded
            } else {
                let hash = keccak256(&encoded);
                stored.insert(hash, encoded);
                hash_reference(&hash)
            }
        }
    }
}

fn hash_reference(hash: &Hash) -> Vec<u8> {
    let mut out = Vec::with_capacity(33);
    hash.as_slice().encode(&mut out);
    out
}

/// The root of a trie whose top node is `node`: its hash, its encoding stored under it
/// whatever its length (a root is always looked up by hash). The empty trie's is
/// [`EMPTY_ROOT`], with nothing stored.
pub(crate) fn commit_root(node: &Node, stored: &mut BTreeMap<Hash, Vec<u8>>) -> Hash {
    match node {
        Node::Empty => EMPTY_ROOT,
        Node::Hash(hash) => *hash,
        _ => {
            let encoded = encode(node, stored);
            let hash = keccak256(&encoded);
            stored.insert(hash, encoded);
            hash
        }
    }
}

/// One RLP item off the front of `buf`: whether it is a list, its payload, its whole encoding.
fn item<'a>(buf: &mut &'a [u8]) -> Result<(bool, &'a [u8], &'a [u8]), EngineError> {
    let start: &'a [u8] = buf;
    let header = Header::decode(buf).map_err(|e| corrupt(&e.to_string()))?;
    let rest: &'a [u8] = buf;
    let payload = rest
        .get(..header.payload_length)
        .ok_or_else(|| corrupt("an item longer than its node"))?;
    *buf = &rest[payload.len()..];
    let whole = &start[..start.len() - buf.len()];
    Ok((header.list, payload, whole))
}

/// Decodes a node's RLP encoding; inline children are decoded too, hashed ones stay
/// [`Node::Hash`].
pub(crate) fn decode(bytes: &[u8]) -> Result<Node, EngineError> {
    let mut buf = bytes;
    let (list, payload, _) = item(&mut buf)?;
    if !list || !buf.is_empty() {
        return Err(corrupt("not one RLP list"));
    }
    let mut items = Vec::with_capacity(17);
    let mut rest = payload;
    while !rest.is_empty() {
        items.push(item(&mut rest)?);
    }
    match items.as_slice() {
        [(false, path, _), second] => {
            let (path, leaf) = from_compact(path)?;
            if leaf {
                match second {
                    (false, value, _) if !value.is_empty() => Ok(Node::Leaf {
                        path,
                        value: value.to_vec(),
                    }),
                    _ => Err(corrupt("a leaf whose value is not a non-empty string")),
                }
            } else if path.is_empty() {
                Err(corrupt("an extension with an empty path"))
            } else {
                Ok(Node::Extension {
                    path,
                    child: Box::new(child(second)?),
                })
            }
        }
        [slots @ .., (false, value, _)] if slots.len() == 16 => {
            let mut children: [Node; 16] = std::array::from_fn(|_| Node::Empty);
            for (slot, found) in children.iter_mut().zip(slots) {
                *slot = child(found)?;
            }
            Ok(Node::Branch {
                children: Box::new(children),
                value: (!value.is_empty()).then(|| value.to_vec()),
            })
        }
        _ => Err(corrupt("neither a 2-item nor a 17-item list")),
    }
}

/// A child reference: empty, a 32-byte hash, or an inline node.
fn child(found: &(bool, &[u8], &[u8])) -> Result<Node, EngineError> {
    match *found {
        (false, [], _) => Ok(Node::Empty),
        (false, payload, _) => payload
            .try_into()
            .map(Node::Hash)
            .map_err(|_| corrupt("a child reference neither empty nor 32 bytes")),
        (true, _, whole) if whole.len() < 32 => decode(whole),
        (true, _, _) => Err(corrupt("an inline child of 32 bytes or more")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_root_is_the_hash_of_the_empty_string() {
        assert_eq!(keccak256(&[EMPTY_STRING_CODE]), EMPTY_ROOT);
    }

    #[test]
    fn paths_round_trip_through_the_compact_encoding() {
        for path in [vec![], vec![1], vec![1, 2], vec![0, 15, 3]] {
            for leaf in [false, true] {
                assert_eq!(
                    from_compact(&compact(&path, leaf)).unwrap(),
                    (path.clone(), leaf)
                );
            }
        }
        // The yellow paper's examples.
        assert_eq!(compact(&[1, 2, 3, 4, 5], false), vec![0x11, 0x23, 0x45]);
        assert_eq!(
            compact(&[0, 15, 1, 12, 11, 8], true),
            vec![0x20, 0x0f, 0x1c, 0xb8]
        );
    }

    #[test]
    fn nodes_round_trip_and_garbage_is_an_error() {
        let mut stored = BTreeMap::new();
        let mut branch = Node::branch(Some(b"v".to_vec()));
        if let Node::Branch { children, .. } = &mut branch {
            children[3] = Node::Leaf {
                path: vec![1],
                value: b"x".to_vec(),
            };
            children[7] = Node::Hash([7; 32]);
        }
        let encoded = encode(&branch, &mut stored);
        assert_eq!(decode(&encoded).unwrap(), branch);
        for bad in [
            &[][..],
            &[0x80],
            &[0xc0],
            &[0xc2, 0x80, 0x80],
            &encoded[..encoded.len() - 1],
        ] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
    }
}
