//! JMT's own in-memory `MockTreeStore` as a [`JmtStore`]: the reference a [`JmtEngine`] on a kv
//! store is checked against.

use ::jmt::mock::MockTreeStore;
use ::jmt::storage::TreeUpdateBatch;
use ::jmt::Version;

use super::{library, JmtEngine, JmtStore};
use crate::EngineError;

/// JMT on its own in-memory mock store (the `jmt` crate's `mocks` feature).
pub type MockJmt = JmtEngine<MockTreeStore>;

impl JmtStore for MockTreeStore {
    const NAME: &'static str = "jmt-mock";

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
