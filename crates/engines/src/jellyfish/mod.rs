//! [`JmtEngine`]: a Jellyfish Merkle tree (the `jmt` crate, 0.12: Penumbra's, from Diem and
//! Aptos) as an [`Engine`], over any [`JmtStore`].
//!
//! JMT is a sparse Merkle tree over 256-bit key hashes with path compression (a leaf sits as
//! high as its key's unique prefix allows), 16-ary internal nodes and SHA-256 here. Its nodes are
//! keyed by (version, nibble path), so every batch is a new version; nodes a version replaces
//! are recorded as stale since it and released by [`Engine::prune_before`] once no kept version
//! reads them. A key is the SHA-256 of the address's bytes (the hex decoded).
//!
//! * `kv_store`: [`KvTreeStore`], JMT's `TreeReader`/`TreeWriter` over a
//!   [`triebench_kv::Store`], so JMT runs on every kv profile;
//! * `kv_reader`: [`KvTreeReader`], its reads from one read transaction;
//! * `mock`: [`JmtStore`] for JMT's own `MockTreeStore`, the reference ([`MockJmt`]).

mod kv_reader;
mod kv_store;
mod mock;

use std::collections::BTreeMap;

use ::jmt::storage::{TreeReader, TreeUpdateBatch, TreeWriter};
use ::jmt::{proof::SparseMerkleProof, JellyfishMerkleTree, KeyHash, RootHash, Version};
use sha2::Sha256;
use triebench_merkle::StateChange;

use crate::{Engine, EngineError, Root};

pub use kv_reader::KvTreeReader;
pub use kv_store::{KvTreeStore, JMT_TABLES};
pub use mock::{MockJmt, MockReader};

/// The empty tree's root: JMT's placeholder hash.
const EMPTY: [u8; 32] = *b"SPARSE_MERKLE_PLACEHOLDER_HASH__";

/// JMT's proof of absence in the empty tree (no leaf, no sibling) in its borsh form: the empty
/// tree before the first batch has no stored root to ask, and JMT's constructor is private.
const EMPTY_PROOF: [u8; 5] = [0, 0, 0, 0, 0];

type Tree<'a, T> = JellyfishMerkleTree<'a, T, Sha256>;

/// Where a [`JmtEngine`] keeps its nodes: JMT's reader and writer, plus the two steps JMT
/// leaves to its store (writing a whole update at once, purging stale nodes).
pub trait JmtStore: TreeReader + TreeWriter {
    /// The engine's name on this store, as reports show it.
    const NAME: &'static str;

    /// What a batch, a read or a proof reads the tree through.
    type Reader<'a>: TreeReader
    where
        Self: 'a;

    /// A reader for one batch, read or proof (one read transaction of a kv store).
    fn reader(&self) -> Result<Self::Reader<'_>, EngineError>;

    /// Stores a version's new nodes, values and stale-node records in one transaction.
    fn write_update(&self, update: TreeUpdateBatch) -> Result<(), EngineError>;

    /// Deletes every node stale since `least_readable` or earlier: versions from
    /// `least_readable` on stay readable.
    fn purge(&self, least_readable: Version) -> Result<(), EngineError>;
}

/// A Jellyfish Merkle tree over `T`. Its versions and their roots are kept in memory: an engine
/// starts on an empty store.
#[derive(Debug)]
pub struct JmtEngine<T> {
    store: T,
    /// Root and JMT version of each batch applied and kept, oldest first; `None` for the
    /// empty tree before the first write.
    versions: Vec<(Root, Option<Version>)>,
    /// The version the next batch that writes gets.
    next: Version,
}

impl<T: JmtStore> JmtEngine<T> {
    /// The engine on `store`, which must be empty.
    pub fn new(store: T) -> Self {
        JmtEngine {
            store,
            versions: Vec::new(),
            next: 0,
        }
    }

    /// The store underneath.
    pub fn store(&self) -> &T {
        &self.store
    }

    /// The version of the latest batch whose root is `root`; `None` for the empty tree before
    /// the first write.
    fn version_of(&self, root: &Root) -> Result<Option<Version>, EngineError> {
        match self.versions.iter().rev().find(|(r, _)| r == root) {
            Some((_, v)) => Ok(*v),
            None if self.versions.is_empty() && root.0 == EMPTY => Ok(None),
            None => Err(EngineError::UnknownRoot {
                engine: T::NAME,
                root: root.to_string(),
            }),
        }
    }
}

/// JMT's key for a trie address: SHA-256 of the address's bytes.
fn key_hash(address: &str) -> Result<KeyHash, EngineError> {
    Ok(KeyHash::with::<Sha256>(crate::engine::address_bytes(
        address,
    )?))
}

/// JMT's error (an `anyhow` chain) as an [`EngineError`]: a storage error it carries stays one.
pub(crate) fn library(engine: &'static str, error: anyhow::Error) -> EngineError {
    match error.downcast::<triebench_kv::KvError>() {
        Ok(kv) => EngineError::Storage(kv),
        Err(error) => EngineError::Library {
            engine,
            message: format!("{error:#}"),
        },
    }
}

impl<T: JmtStore> Engine for JmtEngine<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn root(&self) -> Root {
        self.versions
            .last()
            .map_or_else(|| Root(EMPTY.to_vec()), |(r, _)| r.clone())
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        // Later changes to an address win; JMT takes each key once.
        let mut set: BTreeMap<KeyHash, Option<Vec<u8>>> = BTreeMap::new();
        for change in batch {
            match change {
                StateChange::Set { address, value } => {
                    set.insert(key_hash(address)?, Some(value.clone()));
                }
                StateChange::Delete { address } => {
                    set.insert(key_hash(address)?, None);
                }
            }
        }
        if set.is_empty() {
            // Nothing to write: the latest version again (JMT stores no root for an empty set).
            let (root, version) = self
                .versions
                .last()
                .cloned()
                .unwrap_or((Root(EMPTY.to_vec()), None));
            self.versions.push((root.clone(), version));
            return Ok(root);
        }
        let version = self.next;
        let (root, update) = Tree::new(&self.store.reader()?)
            .put_value_set(set, version)
            .map_err(|e| library(T::NAME, e))?;
        self.store.write_update(update)?;
        self.next = version + 1;
        let root = Root(root.0.to_vec());
        self.versions.push((root.clone(), Some(version)));
        Ok(root)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = key_hash(address)?;
        let Some(version) = self.version_of(root)? else {
            return Ok(None);
        };
        Tree::new(&self.store.reader()?)
            .get(key, version)
            .map_err(|e| library(T::NAME, e))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        let Some(at) = self.versions.iter().position(|(r, _)| r == root) else {
            self.version_of(root)?;
            return Ok(());
        };
        if let Some(version) = self.versions[at].1 {
            self.store.purge(version)?;
        }
        self.versions.drain(..at);
        Ok(())
    }

    fn prove(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = key_hash(address)?;
        let Some(version) = self.version_of(root)? else {
            return Ok(Some(EMPTY_PROOF.to_vec()));
        };
        let (_, proof) = Tree::new(&self.store.reader()?)
            .get_with_proof(key, version)
            .map_err(|e| library(T::NAME, e))?;
        borsh::to_vec(&proof)
            .map(Some)
            .map_err(|e| library(T::NAME, e.into()))
    }

    fn verify(
        &self,
        root: &Root,
        address: &str,
        value: Option<&[u8]>,
        proof: &[u8],
    ) -> Result<(), EngineError> {
        let rejected = |message: String| EngineError::ProofRejected {
            engine: T::NAME,
            message,
        };
        let key = key_hash(address)?;
        let root: [u8; 32] = root
            .0
            .as_slice()
            .try_into()
            .map_err(|_| rejected(format!("a root of {} bytes, not 32", root.0.len())))?;
        let proof: SparseMerkleProof<Sha256> =
            borsh::from_slice(proof).map_err(|e| rejected(format!("undecodable proof: {e}")))?;
        proof
            .verify(RootHash(root), key, value)
            .map_err(|e| rejected(format!("{e:#}")))
    }
}
