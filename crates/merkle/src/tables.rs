//! The store as the trie sees it: the three table handles, and reads of the change log that
//! [`trie`](crate::trie), [`write`](crate::write) and [`prune`](crate::prune) share.

use triebench_kv::{ReadTx, Store, Table};

use crate::changelog::{self, ChangeLogEntry, ChangeLogError, Hash32};
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

/// Reads the change-log entry of `root` whole: its additions read from where they are stored
/// (inline, or apart under [`additions_key`](crate::changelog::additions_key)).
pub(crate) fn read_change_log<R: ReadTx>(
    rx: &R,
    tables: &Tables,
    root: &RawHash,
) -> Result<Option<ChangeLogEntry>, MerkleError> {
    let Some((mut entry, apart)) = read_entry(rx, tables, root)? else {
        return Ok(None);
    };
    if apart {
        entry.additions = read_additions(rx, tables, root)?;
    }
    Ok(Some(entry))
}

/// Reads the change-log entry of `root` as stored: `true` with it where its additions are
/// stored apart, and then left unread (empty): a prune that releases what a successor replaced,
/// and a commit that appends a successor, need everything but them.
pub(crate) fn read_entry<R: ReadTx>(
    rx: &R,
    tables: &Tables,
    root: &RawHash,
) -> Result<Option<(ChangeLogEntry, bool)>, MerkleError> {
    rx.get_with(tables.change_log, root, changelog::decode)?
        .transpose()
        .map_err(|source| corrupt(root, source))
}

/// Decodes `root`'s change-log entry from its stored bytes, if any, as [`read_entry`] reads it.
pub(crate) fn decode_entry(
    root: &RawHash,
    bytes: Option<&[u8]>,
) -> Result<Option<(ChangeLogEntry, bool)>, MerkleError> {
    bytes
        .map(changelog::decode)
        .transpose()
        .map_err(|source| corrupt(root, source))
}

/// Reads the additions of `root`'s version-3 entry, stored apart.
pub(crate) fn read_additions<R: ReadTx>(
    rx: &R,
    tables: &Tables,
    root: &RawHash,
) -> Result<Vec<Hash32>, MerkleError> {
    let key = changelog::additions_key(root);
    match rx.get_with(tables.change_log, &key, changelog::decode_additions)? {
        Some(additions) => additions.map_err(|source| corrupt(root, source)),
        None => Err(corrupt(root, ChangeLogError::MissingAdditions)),
    }
}

/// The error for `root`'s change-log entry that cannot be read.
pub(crate) fn corrupt(root: &RawHash, source: ChangeLogError) -> MerkleError {
    MerkleError::CorruptChangeLog {
        root: hex::encode(root),
        source,
    }
}
