//! [`ModelMpt`]: the MPT's reference engine, roots built from scratch from the mapping.

use std::collections::BTreeMap;

use triebench_merkle::StateChange;

use super::node::{commit_root, nibbles, Node, EMPTY_ROOT};
use crate::engine::address_bytes;
use crate::versions::Versions;
use crate::{Engine, EngineError, Root};

const NAME: &str = "eth-mpt-model";

/// A version's mapping: key bytes -> value.
type Mapping = BTreeMap<Vec<u8>, Vec<u8>>;

/// The mapping each version holds (keys: the addresses' bytes), and its root built from
/// scratch by splitting the sorted keys at their common prefixes: a second way to the same
/// trie, which [`MptEngine`](super::MptEngine)'s updates in place are checked against (the
/// node encoding both share is checked by Ethereum's vectors). Keeps a copy of the mapping per
/// version, so it is for tests and checks, not for measuring.
#[derive(Debug, Clone, Default)]
pub struct ModelMpt {
    versions: Versions<Vec<u8>>,
}

impl ModelMpt {
    fn at(&self, root: &Root) -> Result<Option<&Mapping>, EngineError> {
        self.versions.at(root, root.0 == EMPTY_ROOT, NAME)
    }
}

/// The trie over `entries` (nibble paths from `depth` on, sorted, distinct), built whole.
fn build(entries: &[(Vec<u8>, &[u8])], depth: usize) -> Node {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return Node::Empty;
    };
    if entries.len() == 1 {
        return Node::Leaf {
            path: first.0[depth..].to_vec(),
            value: first.1.to_vec(),
        };
    }
    // Sorted: the common prefix of all is that of the first and the last.
    let shared = first.0[depth..]
        .iter()
        .zip(&last.0[depth..])
        .take_while(|(a, b)| a == b)
        .count();
    if shared > 0 {
        return Node::under(
            &first.0[depth..depth + shared],
            build(entries, depth + shared),
        );
    }
    // A key ending here sorts first; the rest group by their next nibble.
    let (value, rest) = match entries.split_first() {
        Some((ends, rest)) if ends.0.len() == depth => (Some(ends.1.to_vec()), rest),
        _ => (None, entries),
    };
    let mut branch = Node::branch(value);
    if let Node::Branch { children, .. } = &mut branch {
        for (nibble, child) in children.iter_mut().enumerate() {
            let group: Vec<_> = rest
                .iter()
                .filter(|(path, _)| usize::from(path[depth]) == nibble)
                .cloned()
                .collect();
            *child = build(&group, depth + 1);
        }
    }
    branch
}

/// The root of `mapping`.
fn root_of(mapping: &Mapping) -> Root {
    let entries: Vec<(Vec<u8>, &[u8])> = mapping
        .iter()
        .map(|(k, v)| (nibbles(k), v.as_slice()))
        .collect();
    Root(commit_root(&build(&entries, 0), &mut BTreeMap::new()).to_vec())
}

impl Engine for ModelMpt {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        self.versions.latest_root(|| Root(EMPTY_ROOT.to_vec()))
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        let mut mapping = self.versions.latest_mapping();
        for change in batch {
            match change {
                StateChange::Set { address, value } if !value.is_empty() => {
                    mapping.insert(address_bytes(address)?, value.clone());
                }
                StateChange::Set { address, .. } | StateChange::Delete { address } => {
                    mapping.remove(&address_bytes(address)?);
                }
            }
        }
        let root = root_of(&mapping);
        self.versions.push(root.clone(), mapping);
        Ok(root)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = address_bytes(address)?;
        Ok(self.at(root)?.and_then(|m| m.get(&key).cloned()))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        self.at(root)?;
        self.versions.drop_before(root);
        Ok(())
    }
}
