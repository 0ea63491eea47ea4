//! [`Versions`]: what a from-scratch reference model keeps, every version's root with the
//! mapping it was built from; the trie's, the MPT's and NOMT's models share it.

use std::collections::BTreeMap;

use crate::{EngineError, Root};

/// Every version a model has committed and still keeps, oldest first: its root and the
/// mapping (key -> value) it holds, keys as the model keys them.
#[derive(Debug, Clone)]
pub(crate) struct Versions<K> {
    list: Vec<(Root, BTreeMap<K, Vec<u8>>)>,
}

impl<K> Default for Versions<K> {
    fn default() -> Self {
        Versions { list: Vec::new() }
    }
}

impl<K: Ord + Clone> Versions<K> {
    /// Whether no version is kept (nothing committed yet).
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The mapping of the newest version named `root`; `Ok(None)` for a root the caller says
    /// is the empty state's (`empty`) when no version is named so; [`EngineError::UnknownRoot`]
    /// for any other.
    pub(crate) fn at(
        &self,
        root: &Root,
        empty: bool,
        engine: &'static str,
    ) -> Result<Option<&BTreeMap<K, Vec<u8>>>, EngineError> {
        match self.list.iter().rev().find(|(r, _)| r == root) {
            Some((_, mapping)) => Ok(Some(mapping)),
            None if empty => Ok(None),
            None => Err(EngineError::UnknownRoot {
                engine,
                root: root.to_string(),
            }),
        }
    }

    /// The latest version's root, or `empty`'s before the first.
    pub(crate) fn latest_root(&self, empty: impl FnOnce() -> Root) -> Root {
        self.list.last().map_or_else(empty, |(r, _)| r.clone())
    }

    /// A copy of the latest mapping (empty before the first version), for a batch to change.
    pub(crate) fn latest_mapping(&self) -> BTreeMap<K, Vec<u8>> {
        self.list.last().map(|(_, m)| m.clone()).unwrap_or_default()
    }

    /// Keeps a new version.
    pub(crate) fn push(&mut self, root: Root, mapping: BTreeMap<K, Vec<u8>>) {
        self.list.push((root, mapping));
    }

    /// Drops every version before the first one named `root` (none if no version is).
    pub(crate) fn drop_before(&mut self, root: &Root) {
        if let Some(at) = self.list.iter().position(|(r, _)| r == root) {
            self.list.drain(..at);
        }
    }
}
