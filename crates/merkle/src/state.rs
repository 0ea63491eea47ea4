//! [`TrieState`]: an owned handle to a trie's store that takes the root per call, for programs
//! that keep state in a long-lived value shared between threads (a node's state, Transact's
//! `Read`/`Write`/`Prune` implementations) rather than borrowing a store for one job.

use std::sync::Arc;

use triebench_kv::Store;

use crate::changelog::ChangeLogEntry;
use crate::hash::{hex_to_raw, HexHash};
use crate::leaves::Leaves;
use crate::proof::Proof;
use crate::tables::{read_change_log, Tables};
use crate::trie::{parse_root, MerkleTrie};
use crate::{write, MerkleError, StateChange};

/// An owned, cheaply cloned (`Arc`) handle to a store holding a trie; every call names the root
/// it works at.
///
/// Creating one stores the empty root's node, so [`EMPTY_ROOT`](crate::EMPTY_ROOT) is a valid
/// root of any store from then on. A root that is not stored is
/// [`MerkleError::UnknownRoot`]; the check costs no extra read (a missing root node found by
/// the call itself is reported as an unknown root). `TrieState<S>` is `Send + Sync` and
/// `'static` when `S` is, so [`leaves`](Self::leaves) returns an iterator that outlives the
/// call. See [`MerkleTrie`] for the batch rule and [`MerkleTrie::prune`] for what pruning
/// after a commit that changed nothing does.
#[derive(Debug)]
pub struct TrieState<S> {
    store: Arc<S>,
    tables: Tables,
}

impl<S> Clone for TrieState<S> {
    fn clone(&self) -> Self {
        TrieState {
            store: Arc::clone(&self.store),
            tables: self.tables,
        }
    }
}

impl<S: Store> TrieState<S> {
    /// Takes ownership of `store`, which must declare [`TABLES`](crate::TABLES), and stores the
    /// empty root's node if it is missing (see [`MerkleTrie::new`]: a store of another layout
    /// is refused here, once, so the calls that follow need not check it).
    pub fn new(store: S) -> Result<Self, MerkleError> {
        Self::from_arc(Arc::new(store))
    }

    /// As [`new`](Self::new), for a store already shared.
    pub fn from_arc(store: Arc<S>) -> Result<Self, MerkleError> {
        let tables = Tables::resolve(&*store)?;
        write::ensure_empty_root(&*store, &tables)?;
        Ok(TrieState { store, tables })
    }

    /// The store.
    pub fn store(&self) -> &Arc<S> {
        &self.store
    }

    /// A [`MerkleTrie`] view at `root`, checked to be stored (one read).
    pub fn view(&self, root: &str) -> Result<MerkleTrie<'_, S>, MerkleError> {
        MerkleTrie::at_root(&*self.store, root)
    }

    /// The value at `address` under `root` (see [`MerkleTrie::get`]).
    pub fn get(&self, root: &str, address: &str) -> Result<Option<Vec<u8>>, MerkleError> {
        let hash = parse_root(root)?;
        self.at(hash)
            .get(address)
            .map_err(|e| unknown_root(e, root))
    }

    /// A proof of what `address` holds at `root`, inclusion or exclusion (see
    /// [`MerkleTrie::prove`]); check it with [`verify`](crate::verify).
    pub fn prove(&self, root: &str, address: &str) -> Result<Proof, MerkleError> {
        let hash = parse_root(root)?;
        self.at(hash)
            .prove(address)
            .map_err(|e| unknown_root(e, root))
    }

    /// Commits `changes` on top of `root` and returns the new root (see
    /// [`MerkleTrie::commit`]).
    pub fn commit(&self, root: &str, changes: &[StateChange]) -> Result<String, MerkleError> {
        let hash = parse_root(root)?;
        self.at(hash)
            .commit(changes)
            .map_err(|e| unknown_root(e, root))
    }

    /// [`commit`](Self::commit) on `root`, then [`prune`](Self::prune) of `prune`, in one
    /// storage transaction (see [`MerkleTrie::commit_and_prune`]): the new root and the nodes
    /// the prune deleted.
    pub fn commit_and_prune(
        &self,
        root: &str,
        changes: &[StateChange],
        prune: &str,
    ) -> Result<(String, Vec<String>), MerkleError> {
        let hash = parse_root(root)?;
        self.at(hash)
            .commit_and_prune(changes, prune)
            .map_err(|e| unknown_root(e, root))
    }

    /// The root [`commit`](Self::commit) would return, with nothing written.
    pub fn compute(&self, root: &str, changes: &[StateChange]) -> Result<String, MerkleError> {
        let hash = parse_root(root)?;
        self.at(hash)
            .compute(changes)
            .map_err(|e| unknown_root(e, root))
    }

    /// The `(address, value)` pairs under `prefix` at `root`, in address order, read lazily;
    /// the iterator owns a handle to the store (see [`Leaves`]).
    pub fn leaves(&self, root: &str, prefix: &str) -> Result<Leaves<Arc<S>>, MerkleError> {
        let hash = parse_root(root)?;
        Leaves::new(Arc::clone(&self.store), self.tables.main, &hash, prefix)
            .map_err(|e| unknown_root(e, root))
    }

    /// Prunes `root` (see [`MerkleTrie::prune`]) and returns the hashes of the nodes deleted.
    pub fn prune(&self, root: &str) -> Result<Vec<String>, MerkleError> {
        MerkleTrie::prune(&*self.store, root)
    }

    /// The change-log entry of `root`, if it has one (see [`changelog`](crate::changelog)).
    pub fn change_log(&self, root: &str) -> Result<Option<ChangeLogEntry>, MerkleError> {
        let raw = hex_to_raw(&parse_root(root)?);
        read_change_log(&self.store.reader()?, &self.tables, &raw)
    }

    fn at(&self, root: HexHash) -> MerkleTrie<'_, S> {
        MerkleTrie::unchecked(&*self.store, self.tables, root)
    }
}

/// A missing node that is the root itself means the root is not stored.
fn unknown_root(error: MerkleError, root: &str) -> MerkleError {
    match error {
        MerkleError::MissingNode { hash } if hash == root => {
            MerkleError::UnknownRoot { root: hash }
        }
        other => other,
    }
}
