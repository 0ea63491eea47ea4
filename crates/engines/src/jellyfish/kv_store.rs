//! [`KvTreeStore`]: JMT's `TreeReader` and `TreeWriter` over a [`triebench_kv::Store`].
//!
//! Three tables ([`JMT_TABLES`]):
//!
//! * `jmt_nodes`: the borsh encoding of a node's key (version, nibble path) -> the borsh
//!   encoding of the node;
//! * `jmt_values`: key hash (32 bytes) + the version's bitwise complement (8 bytes, big-endian,
//!   so the newest version of a key sorts first) -> `0x01` + value, or `0x00` for a deletion;
//! * `jmt_stale`: version since which a node is stale (8 bytes, big-endian) + the node key's
//!   encoding -> nothing.
//!
//! A value read at a version is the first entry at or after (key hash, complement of the
//! version): one ordered seek, however many versions the key has. Reads go through a
//! [`KvTreeReader`] (`kv_reader`), one read transaction for a whole batch.

use ::jmt::storage::{LeafNode, Node, NodeBatch, NodeKey, TreeReader, TreeUpdateBatch, TreeWriter};
use ::jmt::{KeyHash, OwnedValue, Version};
use triebench_kv::{KeyRange, ReadTx, Store, Table, WriteTx};

use super::kv_reader::{corrupt, value_key, KvTreeReader, NAME};
use super::JmtStore;
use crate::EngineError;

/// The tables a [`KvTreeStore`] needs: open the store with these.
pub const JMT_TABLES: &[&str] = &["jmt_nodes", "jmt_values", "jmt_stale"];

/// JMT's node storage on a kv store, for a [`JmtEngine`](super::JmtEngine) on any profile.
#[derive(Debug)]
pub struct KvTreeStore<S> {
    store: S,
    nodes: Table,
    values: Table,
    stale: Table,
}

impl<S: Store> KvTreeStore<S> {
    /// JMT's storage on `store`, which must declare [`JMT_TABLES`].
    pub fn new(store: S) -> Result<Self, EngineError> {
        Ok(KvTreeStore {
            nodes: store.table("jmt_nodes")?,
            values: store.table("jmt_values")?,
            stale: store.table("jmt_stale")?,
            store,
        })
    }

    /// JMT's reader over one read transaction of the store.
    pub fn tree_reader(&self) -> Result<KvTreeReader<S::Reader<'_>>, EngineError> {
        Ok(KvTreeReader {
            rx: self.store.reader()?,
            nodes: self.nodes,
            values: self.values,
        })
    }

    /// The kv store underneath.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Writes a batch's nodes and values into `w`.
    fn write_batch<W: WriteTx>(&self, w: &mut W, batch: &NodeBatch) -> anyhow::Result<()> {
        for (key, node) in batch.nodes() {
            w.insert(self.nodes, &borsh::to_vec(key)?, &borsh::to_vec(node)?)?;
        }
        for ((version, key_hash), value) in batch.values() {
            let stored = match value {
                Some(v) => [&[1u8][..], v].concat(),
                None => vec![0],
            };
            w.put(self.values, &value_key(key_hash, *version), &stored)?;
        }
        Ok(())
    }
}

impl<S: Store> TreeReader for KvTreeStore<S> {
    // One read transaction per call; a JmtEngine reads a whole batch through one
    // (`JmtStore::reader`).
    fn get_node_option(&self, node_key: &NodeKey) -> anyhow::Result<Option<Node>> {
        self.tree_reader()?.get_node_option(node_key)
    }

    fn get_value_option(
        &self,
        max_version: Version,
        key_hash: KeyHash,
    ) -> anyhow::Result<Option<OwnedValue>> {
        self.tree_reader()?.get_value_option(max_version, key_hash)
    }

    fn get_rightmost_leaf(&self) -> anyhow::Result<Option<(NodeKey, LeafNode)>> {
        self.tree_reader()?.get_rightmost_leaf()
    }
}

impl<S: Store> TreeWriter for KvTreeStore<S> {
    fn write_node_batch(&self, node_batch: &NodeBatch) -> anyhow::Result<()> {
        let mut w = self.store.writer()?;
        self.write_batch(&mut w, node_batch)?;
        w.commit()?;
        Ok(())
    }
}

impl<S: Store> JmtStore for KvTreeStore<S> {
    const NAME: &'static str = NAME;

    type Reader<'a>
        = KvTreeReader<S::Reader<'a>>
    where
        S: 'a;

    fn reader(&self) -> Result<Self::Reader<'_>, EngineError> {
        self.tree_reader()
    }

    fn write_update(&self, update: TreeUpdateBatch) -> Result<(), EngineError> {
        let mut w = self.store.writer()?;
        self.write_batch(&mut w, &update.node_batch)
            .map_err(|e| super::library(NAME, e))?;
        for stale in &update.stale_node_index_batch {
            let node = borsh::to_vec(&stale.node_key).map_err(|e| corrupt("node key", e))?;
            let key = [&stale.stale_since_version.to_be_bytes()[..], &node].concat();
            w.insert(self.stale, &key, &[])?;
        }
        w.commit()?;
        Ok(())
    }

    fn purge(&self, least_readable: Version) -> Result<(), EngineError> {
        let mut w = self.store.writer()?;
        let range = match least_readable.checked_add(1) {
            Some(end) => KeyRange::between(&[], &end.to_be_bytes()),
            None => KeyRange::all(),
        };
        let stale = w.collect(self.stale, &range)?;
        for (key, _) in &stale {
            w.delete(self.nodes, &key[8..])?;
            w.delete(self.stale, key)?;
        }
        w.commit()?;
        Ok(())
    }
}
