//! JMT's own in-memory `MockTreeStore` as a [`JmtStore`]: the reference a [`JmtEngine`] on a kv
//! store is checked against.

use ::jmt::mock::MockTreeStore;
use ::jmt::storage::{LeafNode, Node, NodeKey, TreeReader, TreeUpdateBatch};
use ::jmt::{KeyHash, OwnedValue, Version};

use super::{library, JmtEngine, JmtStore};
use crate::EngineError;

/// JMT on its own in-memory mock store (the `jmt` crate's `mocks` feature).
pub type MockJmt = JmtEngine<MockTreeStore>;

/// The mock's reads, borrowed (the mock itself is the reader).
#[derive(Clone, Copy)]
pub struct MockReader<'a>(&'a MockTreeStore);

impl TreeReader for MockReader<'_> {
    fn get_node_option(&self, node_key: &NodeKey) -> anyhow::Result<Option<Node>> {
        self.0.get_node_option(node_key)
    }

    fn get_value_option(
        &self,
        max_version: Version,
        key_hash: KeyHash,
    ) -> anyhow::Result<Option<OwnedValue>> {
        self.0.get_value_option(max_version, key_hash)
    }

    fn get_rightmost_leaf(&self) -> anyhow::Result<Option<(NodeKey, LeafNode)>> {
        self.0.get_rightmost_leaf()
    }
}

impl JmtStore for MockTreeStore {
    const NAME: &'static str = "jmt-mock";

    type Reader<'a> = MockReader<'a>;

    fn reader(&self) -> Result<Self::Reader<'_>, EngineError> {
        Ok(MockReader(self))
    }

    fn write_update(&self, update: TreeUpdateBatch) -> Result<(), EngineError> {
        self.write_tree_update_batch(update)
            .map_err(|e| library(Self::NAME, e))
    }

    fn purge(&self, least_readable: Version) -> Result<(), EngineError> {
        self.purge_stale_nodes(least_readable)
            .map_err(|e| library(Self::NAME, e))
    }
}

impl Default for MockJmt {
    /// JMT on a fresh mock store. It is told to allow overwriting a node, which JMT never does
    /// for a fresh version: refusing would be an `assert!` in the mock, a panic rather than an
    /// error.
    fn default() -> Self {
        JmtEngine::new(MockTreeStore::new(true))
    }
}
