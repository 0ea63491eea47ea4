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
//! * Storage: two tables, [`MPT_TABLES`]: `mpt_nodes`, a node's Keccak-256 -> its RLP
//!   encoding, for every node of 32 bytes or more (shorter ones live inside their parent) and
//!   every root, as go-ethereum's hash-based scheme stores them; `mpt_refs`, a node's hash -> its
//!   reference count (`refs`). A batch reads through one read transaction and writes its new
//!   nodes and counts in one write transaction.
//! * Pruning: by reference counts. Nodes are named by their hash, so one node can serve several
//!   versions and several places in one version; a node is stored once and counted once per
//!   stored node that refers to it and per kept version whose root it is.
//!   [`Engine::prune_before`] drops the older versions' root counts and deletes every node that
//!   no kept version reaches, in one write transaction. The cost: each new node counts every
//!   hashed child it names (a new branch up to 16), read and written again.
//! * Proofs: `eth_getProof`'s (the stored nodes on the key's path), for a value or its absence
//!   (`proof`).
//!
//! Files: `node` (nodes, RLP, hex-prefix paths), `update` (insert, delete), `walk` (lookups),
//! `refs` (reference counts), `proof`, `model` ([`ModelMpt`]), [`vectors`].

mod model;
mod node;
mod proof;
mod refs;
mod update;
pub mod vectors;
mod walk;

use std::collections::BTreeMap;

use triebench_kv::{KeyRange, ReadTx, Store, Table, WriteTx};
use triebench_merkle::StateChange;

use crate::engine::address_bytes;
use crate::{Engine, EngineError, Root};

pub use model::ModelMpt;
use node::{commit_root, nibbles, Hash, Node, NAME};
pub use node::{keccak256, EMPTY_ROOT};
use update::Load;

/// The tables an [`MptEngine`] needs: open the store with these.
pub const MPT_TABLES: &[&str] = &["mpt_nodes", "mpt_refs"];

/// Ethereum's Merkle Patricia trie over `S`, which must be empty at the start. The roots
/// committed are kept in memory; the trie itself is in the store, and any root whose node is
/// stored can be read.
#[derive(Debug)]
pub struct MptEngine<S> {
    store: S,
    nodes: Table,
    refs: Table,
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
            refs: store.table("mpt_refs")?,
            store,
            roots: Vec::new(),
        })
    }

    /// The kv store underneath.
    pub fn store(&self) -> &S {
        &self.store
    }

    fn tables(&self) -> refs::Tables {
        refs::Tables {
            nodes: self.nodes,
            refs: self.refs,
        }
    }

    /// Checks the store against the kept versions: every node a stored node refers to is
    /// stored, and every stored node's count is the number of stored nodes referring to it
    /// plus the kept versions whose root it is (so no node outlives every version that reaches
    /// it). Reads the whole store: for tests and checks.
    pub fn check_store(&self) -> Result<(), EngineError> {
        let rx = self.store.reader()?;
        let all = KeyRange::all();
        let stored = rx.collect(self.nodes, &all)?;
        let mut expected: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        for root in self.roots.iter().filter(|r| r.0 != EMPTY_ROOT) {
            *expected.entry(root.0.clone()).or_default() += 1;
        }
        for (_, bytes) in &stored {
            for child in refs::references(bytes)? {
                *expected.entry(child.to_vec()).or_default() += 1;
            }
        }
        let counts: BTreeMap<Vec<u8>, u64> = rx
            .collect(self.refs, &all)?
            .into_iter()
            .map(|(k, v)| refs::decode_count(&v).map(|n| (k, n)))
            .collect::<Result<_, _>>()?;
        let keys: Vec<&Vec<u8>> = stored.iter().map(|(k, _)| k).collect();
        if counts != expected || !keys.iter().copied().eq(expected.keys()) {
            return Err(node::corrupt(&format!(
                "{} nodes stored, {} counted, {} reached from the {} kept versions",
                keys.len(),
                counts.len(),
                expected.len(),
                self.roots.len()
            )));
        }
        Ok(())
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
        if root != EMPTY_ROOT {
            let mut w = self.store.writer()?;
            refs::commit(&mut w, self.tables(), &stored, &root)?;
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
        let at = match self.roots.iter().position(|r| r == root) {
            Some(at) => at,
            None if self.roots.is_empty() && root.0 == EMPTY_ROOT => return Ok(()),
            None => {
                return Err(EngineError::UnknownRoot {
                    engine: NAME,
                    root: root.to_string(),
                })
            }
        };
        let released: Vec<Hash> = self.roots[..at]
            .iter()
            .map(hash_of)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|h| *h != EMPTY_ROOT)
            .collect();
        if !released.is_empty() {
            let mut w = self.store.writer()?;
            refs::release(&mut w, self.tables(), released)?;
            w.commit()?;
        }
        self.roots.drain(..at);
        Ok(())
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
