//! [`TransactEngine`]: Hyperledger Transact 0.4.7's own state, `MerkleState`, as an [`Engine`]
//! (feature `transact`), so the same batches give Transact's roots beside ours.
//!
//! Transact's Merkle-Radix trie is the format [`TrieEngine`](crate::TrieEngine) reproduces:
//! their roots agree wherever Transact is right. Where it is not (`docs/findings/transact.md`,
//! "Where Transact is wrong"; `triebench-transact-state`'s `transact_faults.rs`), this engine
//! gives Transact's answer, as measuring Transact means:
//!
//! * values on interior nodes (an address that is a prefix of another) are mishandled;
//! * in one batch a delete wins over a set of the same address, whatever their order (the
//!   trait's rule is that the later change wins), and a set and a delete of an address with no
//!   sibling leave an empty node (fault 4);
//! * a delete of an address that holds nothing is Transact's error;
//! * its pruning can delete a node that a kept root still uses (fault 3).
//!
//! The database: Transact's in-memory `BTreeDatabase` ([`TransactEngine::in_memory`]; no
//! feature of Transact beyond `state-merkle`), or [`KvDatabase`], Transact's `Database` over any
//! kv store ([`TransactEngine::on_store`]), so Transact's own code runs on every kv profile
//! (LMDB through triebench-kv's LMDB), or any `Database` given to [`TransactEngine::on`].
//! Transact's own LMDB database is not offered: it links `lmdb-zero`'s copy of LMDB beside
//! `triebench-kv`'s. Transact's state makes no proofs.
//!
//! * `kv_database`: [`KvDatabase`], Transact's `Database` over a kv store.
//! * `on_store`: [`TransactOnStore`], the engine on a kv store with the store in reach.

mod kv_database;
mod on_store;

pub use kv_database::{KvDatabase, TRANSACT_TABLES};
pub use on_store::TransactOnStore;

use transact::database::btree::BTreeDatabase;
use transact::database::Database;
use transact::state::merkle::{MerkleRadixTree, MerkleState, INDEXES};
use transact::state::{Prune, Read, StateChange as TransactChange, Write};
use triebench_kv::Store;
use triebench_merkle::StateChange;

use crate::{Engine, EngineError, Root};

const NAME: &str = "transact-0.4.7";

fn library(e: impl std::fmt::Display) -> EngineError {
    EngineError::Library {
        engine: NAME,
        message: e.to_string(),
    }
}

/// Transact 0.4.7's `MerkleState` over a Transact `Database`.
pub struct TransactEngine {
    state: MerkleState,
    /// The empty state's root, as Transact computes it.
    empty: String,
    /// Roots of the versions kept, oldest first (a root reached again appears again).
    roots: Vec<String>,
}

impl std::fmt::Debug for TransactEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactEngine")
            .field("empty", &self.empty)
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl TransactEngine {
    /// Transact's state on a fresh in-memory `BTreeDatabase`.
    pub fn in_memory() -> Result<Self, EngineError> {
        Self::on(Box::new(BTreeDatabase::new(&INDEXES)))
    }

    /// Transact's state on a kv store (through [`KvDatabase`]), which must declare
    /// [`TRANSACT_TABLES`] and be empty.
    pub fn on_store<S: Store + 'static>(store: S) -> Result<Self, EngineError> {
        Self::on(Box::new(KvDatabase::new(store)?))
    }

    /// Transact's state on `db`, which must be empty and declare Transact's indexes
    /// (`transact::state::merkle::INDEXES`).
    pub fn on(db: Box<dyn Database>) -> Result<Self, EngineError> {
        let empty = MerkleRadixTree::new(db.clone(), None)
            .map_err(library)?
            .get_merkle_root();
        Ok(TransactEngine {
            state: MerkleState::new(db),
            empty,
            roots: Vec::new(),
        })
    }

    /// Transact's state itself, for what the trait does not offer (leaf listings).
    pub fn state(&self) -> &MerkleState {
        &self.state
    }

    /// Takes `root` as the latest version (a database an earlier run committed it to).
    fn assume_latest(&mut self, root: &Root) {
        self.roots = vec![root.to_string()];
    }

    fn latest(&self) -> &str {
        self.roots.last().unwrap_or(&self.empty)
    }
}

impl Engine for TransactEngine {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        // Transact's roots are 64 hex characters.
        Root(hex::decode(self.latest()).unwrap_or_default())
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        let changes: Vec<TransactChange> = batch
            .iter()
            .map(|change| match change {
                StateChange::Set { address, value } => TransactChange::Set {
                    key: address.clone(),
                    value: value.clone(),
                },
                StateChange::Delete { address } => TransactChange::Delete {
                    key: address.clone(),
                },
            })
            .collect();
        let root = self
            .state
            .commit(&self.latest().to_string(), &changes)
            .map_err(library)?;
        let out = Root(hex::decode(&root).map_err(|e| EngineError::Corrupt {
            engine: NAME,
            what: "root",
            message: e.to_string(),
        })?);
        self.roots.push(root);
        Ok(out)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        triebench_merkle::check_address(address)?;
        let root_hex = root.to_string();
        if root_hex != self.empty && !self.roots.contains(&root_hex) {
            return Err(EngineError::UnknownRoot {
                engine: NAME,
                root: root_hex,
            });
        }
        let mut found = self
            .state
            .get(&root_hex, &[address.to_string()])
            .map_err(library)?;
        Ok(found.remove(address))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        let keep = root.to_string();
        let Some(at) = self.roots.iter().position(|r| *r == keep) else {
            if self.roots.is_empty() && keep == self.empty {
                return Ok(());
            }
            return Err(EngineError::UnknownRoot {
                engine: NAME,
                root: keep,
            });
        };
        // Oldest first, as a Transact node prunes: each root's own nodes, with Transact's faults.
        let old: Vec<String> = self.roots.drain(..at).collect();
        for root in old {
            // A root reached again later is still in use: Transact would delete its nodes.
            if root != keep && !self.roots.contains(&root) {
                self.state.prune(vec![root]).map_err(library)?;
            }
        }
        Ok(())
    }
}
