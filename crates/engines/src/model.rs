//! [`ModelTrie`]: the trie's reference engine, roots computed from scratch from the mapping.

use std::collections::BTreeMap;

use triebench_merkle::reference::root_of;
use triebench_merkle::{MerkleError, StateChange, EMPTY_ROOT};

use crate::versions::Versions;
use crate::{Engine, EngineError, Root};

const NAME: &str = "trie-model";

/// The mapping each version holds, and its root by
/// [`triebench_merkle::reference::root_of`], which builds every node from scratch with no
/// store: what [`TrieEngine`](crate::TrieEngine) is checked against. Keeps a copy of the
/// mapping per version, so it is for tests and checks, not for measuring.
#[derive(Debug, Clone, Default)]
pub struct ModelTrie {
    versions: Versions<String>,
}

fn empty_root() -> Root {
    Root(hex::decode(EMPTY_ROOT).unwrap_or_default())
}

impl ModelTrie {
    fn at(&self, root: &Root) -> Result<Option<&BTreeMap<String, Vec<u8>>>, EngineError> {
        let empty = self.versions.is_empty() && *root == empty_root();
        self.versions.at(root, empty, NAME)
    }
}

impl Engine for ModelTrie {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        self.versions.latest_root(empty_root)
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        let mut mapping = self.versions.latest_mapping();
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
        self.versions.push(root.clone(), mapping);
        Ok(root)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        triebench_merkle::check_address(address)?;
        Ok(self.at(root)?.and_then(|m| m.get(address).cloned()))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        self.at(root)?;
        self.versions.drop_before(root);
        Ok(())
    }
}
