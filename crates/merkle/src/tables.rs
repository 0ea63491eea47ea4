//! The store as the trie sees it: the three table handles, and reads of the change log that
//! [`trie`](crate::trie), [`write`](crate::write) and [`prune`](crate::prune) share.

use triebench_kv::{ReadTx, Store, Table};

use crate::changelog::ChangeLogEntry;
use crate::hash::RawHash;
use crate::node_table::NodeTable;
use crate::MerkleError;

/// The table handles the trie uses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tables {
    /// `main`: nodes under their raw hashes.
    pub main: NodeTable,
    pub change_log: Table,
    pub duplicate_log: Table,
}

impl Tables {
    /// Looks up the tables in [`TABLES`](crate::TABLES) in `store`.
    pub(crate) fn resolve<S: Store>(store: &S) -> Result<Self, MerkleError> {
        Ok(Tables {
            main: NodeTable::new(store.table("main")?),
            change_log: store.table("change_log")?,
            duplicate_log: store.table("duplicate_log")?,
        })
    }
}

/// Reads the change-log entry of `root`.
pub(crate) fn read_change_log<R: ReadTx>(
    rx: &R,
    tables: &Tables,
    root: &RawHash,
) -> Result<Option<ChangeLogEntry>, MerkleError> {
    match rx.get_with(tables.change_log, root, ChangeLogEntry::from_bytes)? {
        None => Ok(None),
        Some(Ok(entry)) => Ok(Some(entry)),
        Some(Err(source)) => Err(MerkleError::CorruptChangeLog {
            root: hex::encode(root),
            source,
        }),
    }
}
