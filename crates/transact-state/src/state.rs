//! [`TransactState`]: Transact's `Read`, `Write`, `Prune` and `MerkleRadixLeafReader` over the
//! trie, a drop-in for Transact's `MerkleState` and `SqlMerkleState`.

use std::collections::HashMap;
use std::error::Error;

use transact::error::{InternalError, InvalidStateError};
use transact::state::merkle::{MerkleRadixLeafReadError, MerkleRadixLeafReader};
use transact::state::{
    Prune, Read, StateChange as TransactChange, StatePruneError, StateReadError, StateWriteError,
    Write,
};
use triebench_kv::Store;
use triebench_merkle::{MerkleError, TrieState};

use crate::batch::transact_batch;

/// Transact's state traits over a [`TrieState`]: owned, cheap to clone (an `Arc`), `Send +
/// Sync`, and the root named per call, as Transact's own states are.
///
/// - **Roots** are byte-for-byte Transact's for every batch Transact accepts, applying
///   Transact's batch rule (see [`batch`](crate::batch)): deletes win over sets, wherever
///   they stand. Where Transact is wrong (values on interior nodes, one-token addresses) this
///   state gives the root of the mapping instead (`docs/findings/transact.md`).
/// - **Errors** follow Transact: an unknown root is `InvalidStateId`; deleting an address with
///   no value at the root, or a malformed address in a batch, is a `StorageError`, and nothing
///   of the batch is written; a malformed address read is `InvalidKey`.
/// - **Pruning** returns the hashes of the nodes deleted. A batch that changes nothing returns
///   its parent root; the trie counts that root as reached again, so pruning "the previous
///   root" after such a block keeps the head (see `MerkleTrie::prune`).
/// - **Leaves** are listed lazily in address order. A prefix that leads to no node lists
///   nothing (Transact answers `InvalidStateError`).
#[derive(Debug)]
pub struct TransactState<S> {
    trie: TrieState<S>,
}

impl<S> Clone for TransactState<S> {
    fn clone(&self) -> Self {
        TransactState {
            trie: self.trie.clone(),
        }
    }
}

impl<S: Store> TransactState<S> {
    /// Wraps a trie handle.
    pub fn new(trie: TrieState<S>) -> Self {
        TransactState { trie }
    }

    /// Takes `store` (opened with [`TABLES`](triebench_merkle::TABLES)) and stores the empty
    /// root's node if missing, so [`initial_root`](Self::initial_root) is valid.
    pub fn from_store(store: S) -> Result<Self, MerkleError> {
        Ok(TransactState::new(TrieState::new(store)?))
    }

    /// The root of the empty state, where a new chain starts (Transact's
    /// `MerkleRadixTree::get_merkle_root` of a fresh database).
    pub fn initial_root(&self) -> String {
        triebench_merkle::EMPTY_ROOT.to_string()
    }

    /// The trie handle underneath, for the trie's own in-order API.
    pub fn trie(&self) -> &TrieState<S> {
        &self.trie
    }
}

/// A trie error as the boxed storage error Transact's error enums carry.
fn storage(error: MerkleError) -> Box<dyn Error> {
    Box::new(error)
}

impl<S: Store> Write for TransactState<S> {
    type StateId = String;
    type Key = String;
    type Value = Vec<u8>;

    fn commit(
        &self,
        state_id: &String,
        state_changes: &[TransactChange],
    ) -> Result<String, StateWriteError> {
        self.trie
            .commit(state_id, &transact_batch(state_changes))
            .map_err(write_error)
    }

    fn compute_state_id(
        &self,
        state_id: &String,
        state_changes: &[TransactChange],
    ) -> Result<String, StateWriteError> {
        self.trie
            .compute(state_id, &transact_batch(state_changes))
            .map_err(write_error)
    }
}

fn write_error(error: MerkleError) -> StateWriteError {
    match error {
        MerkleError::UnknownRoot { .. } | MerkleError::InvalidHash { .. } => {
            StateWriteError::InvalidStateId(error.to_string())
        }
        other => StateWriteError::StorageError(storage(other)),
    }
}

impl<S: Store + 'static> Read for TransactState<S> {
    type StateId = String;
    type Key = String;
    type Value = Vec<u8>;

    /// The values of `keys` at `state_id`; keys with no value are left out of the map.
    fn get(
        &self,
        state_id: &String,
        keys: &[String],
    ) -> Result<HashMap<String, Vec<u8>>, StateReadError> {
        let mut out = HashMap::with_capacity(keys.len());
        for key in keys {
            match self.trie.get(state_id, key) {
                Ok(Some(value)) => {
                    out.insert(key.clone(), value);
                }
                Ok(None) => {}
                Err(MerkleError::InvalidAddress { .. }) => {
                    return Err(StateReadError::InvalidKey(key.clone()))
                }
                Err(e @ (MerkleError::UnknownRoot { .. } | MerkleError::InvalidHash { .. })) => {
                    return Err(StateReadError::InvalidStateId(e.to_string()))
                }
                Err(other) => return Err(StateReadError::StorageError(storage(other))),
            }
        }
        Ok(out)
    }

    fn clone_box(&self) -> Box<dyn Read<StateId = String, Key = String, Value = Vec<u8>>> {
        Box::new(self.clone())
    }
}

impl<S: Store> Prune for TransactState<S> {
    type StateId = String;
    type Key = String;
    type Value = Vec<u8>;

    /// Prunes each root in turn and returns the hashes of every node deleted.
    fn prune(&self, state_ids: Vec<String>) -> Result<Vec<String>, StatePruneError> {
        let mut deleted = Vec::new();
        for root in &state_ids {
            match self.trie.prune(root) {
                Ok(hashes) => deleted.extend(hashes),
                Err(e @ (MerkleError::UnknownRoot { .. } | MerkleError::InvalidHash { .. })) => {
                    return Err(StatePruneError::InvalidStateId(e.to_string()))
                }
                Err(other) => return Err(StatePruneError::StorageError(storage(other))),
            }
        }
        Ok(deleted)
    }
}

type LeafResult<T> = Result<T, MerkleRadixLeafReadError>;

impl<S: Store + 'static> MerkleRadixLeafReader for TransactState<S> {
    /// The leaves under `subtree` (the whole state for `None`) at `state_id`, in address order,
    /// read lazily.
    fn leaves(
        &self,
        state_id: &String,
        subtree: Option<&str>,
    ) -> LeafResult<Box<dyn Iterator<Item = LeafResult<(String, Vec<u8>)>>>> {
        let leaves = self
            .trie
            .leaves(state_id, subtree.unwrap_or(""))
            .map_err(leaf_error)?;
        Ok(Box::new(leaves.map(|leaf| leaf.map_err(leaf_error))))
    }
}

fn leaf_error(error: MerkleError) -> MerkleRadixLeafReadError {
    match error {
        MerkleError::UnknownRoot { .. }
        | MerkleError::InvalidHash { .. }
        | MerkleError::InvalidAddress { .. } => MerkleRadixLeafReadError::InvalidStateError(
            InvalidStateError::with_message(error.to_string()),
        ),
        other => {
            MerkleRadixLeafReadError::InternalError(InternalError::from_source(Box::new(other)))
        }
    }
}
