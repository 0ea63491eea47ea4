//! [`MptEngine`]: Ethereum's Merkle Patricia trie (hexary, Keccak-256, RLP nodes, path
//! compression by extension and leaf nodes) as an [`Engine`], over any [`triebench_kv::Store`],
//! so it runs on every kv profile.
//!
//! Triebench's own, compact implementation of the yellow paper's appendix D (Keccak-256 from
//! RustCrypto's `sha3`, RLP from `alloy-rlp`), checked against Ethereum's published trie test
//! vectors ([`vectors`]) and against [`ModelMpt`], roots built from scratch. The published
//! `eth_trie` crate was not used: it pulls in `alloy-primitives` and `keccak-hash` (about 25
//! crates new to the build), its node decoding panics on some malformed input (a proof is
//! input), and its store interface writes a commit's nodes and removals as separate calls.
//!
//! * Keys: an address's bytes (the hex decoded; 35 bytes for a Transact address), unhashed, as
//!   Ethereum's plain trie takes them (its "secure" trie hashes them first; [`vectors`] runs
//!   both kinds of vector).
//! * Values: as given; an empty value is absence (Ethereum's rule): a set to an empty value
//!   deletes. A delete of an address that holds nothing changes nothing.
//! * Storage: one table, [`MPT_TABLES`]: `mpt_nodes`, a node's Keccak-256 -> its RLP encoding,
//!   for every node of 32 bytes or more (shorter ones live inside their parent) and every root,
//!   as go-ethereum's hash-based scheme stores them. A batch reads through one read transaction
//!   and writes its new nodes in one write transaction.
//! * Pruning: none. Nodes are named by their hash, so one node can serve several versions and
//!   several places in one version; releasing it needs reference counts this engine does not
//!   keep. [`Engine::prune_before`] forgets the older roots and keeps every node: bytes on disk
//!   grow with every version (as an archive node's do).
//! * Proofs: `eth_getProof`'s (the stored nodes on the key's path), for a value or its absence
//!   (`proof`).
//!
//! Files: `node` (nodes, RLP, hex-prefix paths), `update` (insert, delete), `walk` (lookups),
//! `proof`, `model` ([`ModelMpt`]), [`vectors`].

mod model;
mod node;
mod proof;
mod update;
pub mod vectors;
mod walk;

use std::collections::BTreeMap;

use triebench_kv::{ReadTx, Store, Table, WriteTx};
use triebench_merkle::StateChange;

use crate::engine::address_bytes;
use crate::{Engine, EngineError, Root};

pub use model::ModelMpt;
use node::{commit_root, nibbles, Hash, Node, NAME};
pub use node::{keccak256, EMPTY_ROOT};
use update::Load;

/// The tables an [`MptEngine`] needs: open the store with these.
pub const MPT_TABLES: &[&str] = &["mpt_nodes"];

/// Ethereum's Merkle Patricia trie over `S`. The roots committed are kept in memory; the trie
/// itself is in the store, and any root whose node is stored can be read.
#[derive(Debug)]
pub struct MptEngine<S> {
    store: S,
    nodes: Table,
    /// Roots of the versions kept, oldest first (a root reached again appears again).
    roots: Vec<Root>,
}

/// Reads nodes through one read transaction.
struct Reader<'a, R> {
    rx: &'a R,
    nodes: Table,
}

impl<R: ReadTx> Load for Reader<'_, R> {
    fn load(&self, hash: &Hash) -> Result<Option<Vec<u8>>, EngineError> {
        Ok(self.rx.get(self.nodes, hash)?)
    }
}

/// A root as the 32-byte hash it must be.
fn hash_of(root: &Root) -> Result<Hash, EngineError> {
    root.0
        .as_slice()
        .try_into()
        .map_err(|_| EngineError::UnknownRoot {
            engine: NAME,
            root: root.to_string(),
        })
}

impl<S: Store> MptEngine<S> {
    /// The engine over `store`, which must declare [`MPT_TABLES`], at the empty root.
    pub fn new(store: S) -> Result<Self, EngineError> {
        Ok(MptEngine {
            nodes: store.table("mpt_nodes")?,
            store,
            roots: Vec::new(),
        })
    }

    /// The kv store underneath.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Looks `key` up at `root`; `record` sees every stored node read, root first.
    fn walk(
        &self,
        root: &Root,
        key: &[u8],
        record: &mut dyn FnMut(&[u8]),
    ) -> Result<Option<Vec<u8>>, EngineError> {
        let root_hash = hash_of(root)?;
        let rx = self.store.reader()?;
        walk::lookup(
            &root_hash,
            &nibbles(key),
            &mut |hash| match rx.get(self.nodes, hash)? {
                Some(bytes) => {
                    record(&bytes);
                    Ok(bytes)
                }
                None if hash == &root_hash => Err(EngineError::UnknownRoot {
                    engine: NAME,
                    root: root.to_string(),
                }),
                None => Err(node::corrupt(&format!(
                    "node {} is referred to but not stored",
                    hex::encode(hash)
                ))),
            },
        )
    }
}

impl<S: Store> Engine for MptEngine<S> {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        self.roots
            .last()
            .cloned()
            .unwrap_or_else(|| Root(EMPTY_ROOT.to_vec()))
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        let mut top = match hash_of(&self.root())? {
            EMPTY_ROOT => Node::Empty,
            hash => Node::Hash(hash),
        };
        let mut stored = BTreeMap::new();
        let root = {
            let rx = self.store.reader()?;
            let load = Reader {
                rx: &rx,
                nodes: self.nodes,
            };
            for change in batch {
                match change {
                    StateChange::Set { address, value } if !value.is_empty() => {
                        let path = nibbles(&address_bytes(address)?);
                        top = update::insert(top, &path, value.clone(), &load)?;
                    }
                    StateChange::Set { address, .. } | StateChange::Delete { address } => {
                        let path = nibbles(&address_bytes(address)?);
                        update::delete(&mut top, &path, &load)?;
                    }
                }
            }
            commit_root(&top, &mut stored)
        };
        if !stored.is_empty() {
            let mut w = self.store.writer()?;
            w.put_many(
                self.nodes,
                stored.iter().map(|(k, v)| (k.as_slice(), v.as_slice())),
            )?;
            w.commit()?;
        }
        let root = Root(root.to_vec());
        self.roots.push(root.clone());
        Ok(root)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = address_bytes(address)?;
        self.walk(root, &key, &mut |_| {})
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        // Every node is kept (see the module's docs); only the older roots are forgotten.
        match self.roots.iter().position(|r| r == root) {
            Some(at) => {
                self.roots.drain(..at);
                Ok(())
            }
            None if self.roots.is_empty() && root.0 == EMPTY_ROOT => Ok(()),
            None => Err(EngineError::UnknownRoot {
                engine: NAME,
                root: root.to_string(),
            }),
        }
    }

    fn prove(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = address_bytes(address)?;
        let mut nodes = Vec::new();
        self.walk(root, &key, &mut |bytes| nodes.push(bytes.to_vec()))?;
        Ok(Some(proof::encode(&nodes)))
    }

    fn verify(
        &self,
        root: &Root,
        address: &str,
        value: Option<&[u8]>,
        proof: &[u8],
    ) -> Result<(), EngineError> {
        let key = address_bytes(address)?;
        let root = hash_of(root).map_err(|_| EngineError::ProofRejected {
            engine: NAME,
            message: format!("a root of {} bytes, not 32", root.0.len()),
        })?;
        proof::verify(&root, &key, value, proof)
    }
}
