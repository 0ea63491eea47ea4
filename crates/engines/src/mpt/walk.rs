//! [`lookup`]: the value at a key, from a root down, reading stored nodes as it goes: what
//! reads, proofs and their checks share.

use super::node::{decode, Hash, Node, EMPTY_ROOT};
use crate::EngineError;

/// The value at `path` (nibbles) in the trie whose root is `root`. `load` returns the encoding
/// stored under a hash, or the error its absence means (an unknown root, a damaged store, an
/// incomplete proof); a prover records what it is asked for.
pub(crate) fn lookup(
    root: &Hash,
    path: &[u8],
    load: &mut dyn FnMut(&Hash) -> Result<Vec<u8>, EngineError>,
) -> Result<Option<Vec<u8>>, EngineError> {
    if *root == EMPTY_ROOT {
        return Ok(None);
    }
    let mut node = Node::Hash(*root);
    let mut path = path;
    loop {
        match node {
            Node::Empty => return Ok(None),
            Node::Hash(hash) => node = decode(&load(&hash)?)?,
            Node::Leaf {
                path: leaf_path,
                value,
            } => return Ok((leaf_path == path).then_some(value)),
            Node::Extension {
                path: ext_path,
                child,
            } => match path.strip_prefix(ext_path.as_slice()) {
                None => return Ok(None),
                Some(rest) => {
                    path = rest;
                    node = *child;
                }
            },
            Node::Branch {
                mut children,
                value,
            } => match path.split_first() {
                None => return Ok(value),
                Some((&first, rest)) => {
                    path = rest;
                    node = std::mem::take(&mut children[usize::from(first)]);
                }
            },
        }
    }
}
