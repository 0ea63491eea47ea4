//! [`ModelTrie`]: the trie's reference engine, roots computed from scratch from the mapping.

use std::collections::BTreeMap;

use triebench_merkle::reference::root_of;
use triebench_merkle::{MerkleError, StateChange, EMPTY_ROOT};

use crate::{Engine, EngineError, Root};

const NAME: &str = "trie-model";

/// The mapping each version holds, and its root by
/// [`triebench_merkle::reference::root_of`], which builds every node from scratch with no
/// store: what [`TrieEngine`](crate::TrieEngine) is checked against. Keeps a copy of the
/// mapping per version, so it is for tests and checks, not for measuring.
#[derive(Debug, Clone, Default)]
pub struct ModelTrie {
    versions: Vec<(Root, BTreeMap<String, Vec<u8>>)>,
}

fn empty_root() -> Root {
    Root(hex::decode(EMPTY_ROOT).unwrap_or_default())
}

impl ModelTrie {
    fn at(&self, root: &Root) -> Result<Option<&BTreeMap<String, Vec<u8>>>, EngineError> {
        match self.versions.iter().rev().find(|(r, _)| r == root) {
            Some((_, mapping)) => Ok(Some(mapping)),
            None if self.versions.is_empty() && *root == empty_root() => Ok(None),
            None => Err(EngineError::UnknownRoot {
                engine: NAME,
                root: root.to_string(),
            }),
        }
    }
}

impl Engine for ModelTrie {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        self.versions
            .last()
            .map_or_else(empty_root, |(r, _)| r.clone())
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        let mut mapping = self
            .versions
            .last()
            .map(|(_, m)| m.clone())
            .unwrap_or_default();
        for change in batch {
            match change {
                StateChange::Set { address, value } => {
                    triebench_merkle::check_address(address)?;
                    mapping.insert(address.clone(), value.clone());
                }
                StateChange::Delete { address } => {
                    triebench_merkle::check_address(address)?;
                    if mapping.remove(address).is_none() {
                        return Err(MerkleError::DeleteAbsent {
                            address: address.clone(),
                        }
                        .into());
                    }
                }
            }
        }
        let root = Root(hex::decode(root_of(&mapping)?).unwrap_or_default());
        self.versions.push((root.clone(), mapping));
        Ok(root)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        triebench_merkle::check_address(address)?;
        Ok(self.at(root)?.and_then(|m| m.get(address).cloned()))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        self.at(root)?;
        if let Some(at) = self.versions.iter().position(|(r, _)| r == root) {
            self.versions.drain(..at);
        }
        Ok(())
    }
}
