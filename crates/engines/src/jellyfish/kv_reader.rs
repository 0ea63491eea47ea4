//! [`KvTreeReader`]: JMT's `TreeReader` over one read transaction of a kv store (the layout is
//! [`KvTreeStore`](super::KvTreeStore)'s).

use std::ops::ControlFlow;

use ::jmt::storage::{LeafNode, Node, NodeKey, TreeReader};
use ::jmt::{KeyHash, OwnedValue, Version};
use triebench_kv::{KeyRange, ReadTx, Table};

use crate::EngineError;

/// The engine's name on a kv store.
pub(super) const NAME: &str = "jmt";

/// Storage key of a key's value at a version.
pub(super) fn value_key(key_hash: &KeyHash, version: Version) -> Vec<u8> {
    [&key_hash.0[..], &(!version).to_be_bytes()].concat()
}

pub(super) fn corrupt(what: &'static str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Corrupt {
        engine: NAME,
        what,
        message: e.to_string(),
    }
}

/// JMT's reads from one read transaction `R` (a consistent snapshot where the backend offers
/// one), so that a batch does not open one per node.
#[derive(Debug)]
pub struct KvTreeReader<R> {
    pub(super) rx: R,
    pub(super) nodes: Table,
    pub(super) values: Table,
}

impl<R: ReadTx> TreeReader for KvTreeReader<R> {
    fn get_node_option(&self, node_key: &NodeKey) -> anyhow::Result<Option<Node>> {
        let key = borsh::to_vec(node_key)?;
        let Some(bytes) = self.rx.get(self.nodes, &key)? else {
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
        self.rx.scan(self.values, &range, |_, value| {
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
        self.rx.scan(self.nodes, &KeyRange::all(), |key, value| {
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
