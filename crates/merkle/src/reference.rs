//! A reference model: the root of an address -> value mapping, built from scratch.
//!
//! [`root_of`] ignores history entirely: it builds every node of the mapping with the general
//! [`codec`](crate::codec) and hashes bottom-up. The trie's root after any sequence of commits
//! must equal `root_of` of the final mapping; the property tests check exactly that. It is also
//! handy to compute the expected root of a fixture without a store.

use std::collections::BTreeMap;

use crate::codec::{encode, Node};
use crate::{address, hash, MerkleError};

/// The state root of `mapping` (addresses as in the trie: lowercase hex, even length).
pub fn root_of<V: AsRef<[u8]>>(mapping: &BTreeMap<String, V>) -> Result<String, MerkleError> {
    let mut hashes = node_hashes(mapping)?;
    // `node_hashes` always hashes the root, at the empty path.
    Ok(hashes.remove("").unwrap_or_default())
}

/// The hash of every node of the trie holding exactly `mapping`, keyed by the node's path (the
/// address prefix it sits at; `""` is the root). Nodes exist exactly on the paths to present
/// addresses, so this is also what a pruning check expects to find stored for a root.
pub fn node_hashes<V: AsRef<[u8]>>(
    mapping: &BTreeMap<String, V>,
) -> Result<BTreeMap<String, String>, MerkleError> {
    // Every address and every prefix of one is a node; key nodes by their token path.
    let mut nodes: BTreeMap<Vec<u8>, Option<&[u8]>> = BTreeMap::new();
    nodes.insert(Vec::new(), None);
    for (address, value) in mapping {
        let tokens = address::tokens(address)?;
        for depth in 0..tokens.len() {
            nodes.entry(tokens[..depth].to_vec()).or_insert(None);
        }
        nodes.insert(tokens, Some(value.as_ref()));
    }
    // Deepest first, so every child is hashed before its parent.
    let mut paths: Vec<Vec<u8>> = nodes.keys().cloned().collect();
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut children: BTreeMap<Vec<u8>, BTreeMap<String, String>> = BTreeMap::new();
    let mut hashes = BTreeMap::new();
    for path in paths {
        let node = Node {
            value: nodes.get(&path).copied().flatten().map(<[u8]>::to_vec),
            children: children.remove(&path).unwrap_or_default(),
        };
        let h = hash::hash_hex(&encode(&node));
        if let Some((&token, parent)) = path.split_last() {
            children
                .entry(parent.to_vec())
                .or_default()
                .insert(address::from_tokens(&[token]), h.clone());
        }
        hashes.insert(address::from_tokens(&path), h);
    }
    Ok(hashes)
}
