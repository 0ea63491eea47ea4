//! [`ModelNomt`]: NOMT's reference engine, roots built from scratch by nomt-core with no
//! storage.

use std::collections::BTreeMap;

use nomt_core::trie::{KeyPath, TERMINATOR};
use nomt_core::update::build_trie;
use triebench_merkle::StateChange;

use super::key::{key_path, value_hash, Hasher};
use crate::versions::Versions;
use crate::{Engine, EngineError, Root};

const NAME: &str = "nomt-model";

/// A version's mapping: key path -> value.
type Mapping = BTreeMap<KeyPath, Vec<u8>>;

/// The mapping each version holds (keys: NOMT's key paths, the SHA-256 of the addresses'
/// bytes) and its root from nomt-core's `update::build_trie`, which builds the whole binary
/// trie from the sorted (key path, value hash) leaves with [`Hasher`]: no pages, no hash
/// table, no b-tree, none of the incremental update [`NomtEngine`](super::NomtEngine) runs.
/// The same rules as the engine: a later change to an address wins, a delete of an address
/// that holds nothing changes nothing, an empty value is a value. Keeps a copy of the mapping
/// per version, so it is for tests and checks, not for measuring.
#[derive(Debug, Clone, Default)]
pub struct ModelNomt {
    versions: Versions<KeyPath>,
}

/// The empty trie's root: NOMT's terminator (all zeros).
fn empty_root() -> Root {
    Root(TERMINATOR.to_vec())
}

impl ModelNomt {
    fn at(&self, root: &Root) -> Result<Option<&Mapping>, EngineError> {
        let empty = self.versions.is_empty() && *root == empty_root();
        self.versions.at(root, empty, NAME)
    }
}

/// The root of the binary trie over `mapping`, built from scratch.
fn root_of(mapping: &Mapping) -> Root {
    let leaves = mapping.iter().map(|(key, value)| (*key, value_hash(value)));
    Root(build_trie::<Hasher>(0, leaves, |_| {}).to_vec())
}

impl Engine for ModelNomt {
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
                    mapping.insert(key_path(address)?, value.clone());
                }
                StateChange::Delete { address } => {
                    mapping.remove(&key_path(address)?);
                }
            }
        }
        let root = root_of(&mapping);
        self.versions.push(root.clone(), mapping);
        Ok(root)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = key_path(address)?;
        Ok(self.at(root)?.and_then(|m| m.get(&key).cloned()))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        self.at(root)?;
        self.versions.drop_before(root);
        Ok(())
    }
}
