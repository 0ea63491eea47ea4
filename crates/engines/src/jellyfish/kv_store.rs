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
//! version): one ordered seek, however many versions the key has.

use std::ops::ControlFlow;

use ::jmt::storage::{LeafNode, Node, NodeBatch, NodeKey, TreeReader, TreeUpdateBatch, TreeWriter};
use ::jmt::{KeyHash, OwnedValue, Version};
use triebench_kv::{KeyRange, ReadTx, Store, Table, WriteTx};

use super::JmtStore;
use crate::EngineError;

/// The tables a [`KvTreeStore`] needs: open the store with these.
pub const JMT_TABLES: &[&str] = &["jmt_nodes", "jmt_values", "jmt_stale"];

const NAME: &str = "jmt";

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

/// Storage key of a key's value at a version.
fn value_key(key_hash: &KeyHash, version: Version) -> Vec<u8> {
    [&key_hash.0[..], &(!version).to_be_bytes()].concat()
}

fn corrupt(what: &'static str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Corrupt {
        engine: NAME,
        what,
        message: e.to_string(),
    }
}

impl<S: Store> TreeReader for KvTreeStore<S> {
    fn get_node_option(&self, node_key: &NodeKey) -> anyhow::Result<Option<Node>> {
        let key = borsh::to_vec(node_key)?;
        let Some(bytes) = self.store.reader()?.get(self.nodes, &key)? else {
            return Ok(None);
        };
        let node = borsh::from_slice(&bytes).map_err(|e| corrupt("node", e))?;
        Ok(Some(node))
    }

    fn get_value_option(
        &self,
        max_version: Version,
        key_hash: KeyHash,
    ) -> anyhow::Result<Option<OwnedValue>> {
        let mut range = KeyRange::prefix(&key_hash.0);
        range.start = value_key(&key_hash, max_version);
        let mut found: Option<Vec<u8>> = None;
        self.store.reader()?.scan(self.values, &range, |_, value| {
            found = Some(value.to_vec());
            ControlFlow::Break(())
        })?;
        match found.as_deref() {
            None | Some([0]) => Ok(None),
            Some([1, value @ ..]) => Ok(Some(value.to_vec())),
            Some(_) => Err(corrupt("value", "neither 0x00 nor 0x01 + value").into()),
        }
    }

    fn get_rightmost_leaf(&self) -> anyhow::Result<Option<(NodeKey, LeafNode)>> {
        // Only JMT's restore asks this: a scan of every node.
        let mut best: Option<(NodeKey, LeafNode)> = None;
        let mut failure: Option<EngineError> = None;
        self.store
            .reader()?
            .scan(self.nodes, &KeyRange::all(), |key, value| {
                let decoded = borsh::from_slice::<NodeKey>(key)
                    .and_then(|k| borsh::from_slice::<Node>(value).map(|n| (k, n)));
                match decoded {
                    Ok((key, Node::Leaf(leaf))) => {
                        if best
                            .as_ref()
                            .is_none_or(|(_, b)| leaf.key_hash() > b.key_hash())
                        {
                            best = Some((key, leaf));
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        failure = Some(corrupt("node", e));
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            })?;
        match failure {
            Some(e) => Err(e.into()),
            None => Ok(best),
        }
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
