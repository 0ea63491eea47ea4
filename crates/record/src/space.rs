//! Where a store's bytes go ([`StoreSpace`]): per table, what it holds (entries, key and value
//! bytes as stored) beside what the backend spends on it (pages, indexes, out-of-line values),
//! and the store-wide rest (free pages, a WAL or journal). The growth curve records one per
//! checkpoint (`grow.json`), so disk per leaf can be split into the data and its overhead.

use serde::{Deserialize, Serialize};

/// One table of a store: its data and what the backend spends on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableSpace {
    /// The table's name (`merkle_nodes`, `change_log`, ...).
    pub table: String,
    /// Entries (rows, keys) it holds.
    pub entries: u64,
    /// Bytes of its keys, as the store holds them (the trie's `main` keys a node by its raw
    /// 32-byte hash since store layout 2; layout-1 stores, recorded before 2026-11-28, by its 64
    /// hex digits).
    pub key_bytes: u64,
    /// Bytes of its values.
    pub value_bytes: u64,
    /// Bytes of the pages (or relation blocks) holding its entries, values stored out of line
    /// included: what the table occupies in the store's files.
    pub stored_bytes: u64,
    /// Of `stored_bytes`, what holds no entry: the unused part of its pages.
    pub unused_bytes: u64,
    /// Of `stored_bytes`, what is index (SQLite's key index, PostgreSQL's primary key), or
    /// LMDB's branch pages: what finds an entry rather than holds it.
    pub index_bytes: u64,
    /// Of `stored_bytes`, values kept out of line (LMDB overflow pages, PostgreSQL TOAST,
    /// SQLite overflow pages).
    pub overflow_bytes: u64,
}

/// Where one store's bytes go, as its backend accounts them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoreSpace {
    /// The backend's page (block) size in bytes.
    pub page_bytes: u64,
    /// Each table the store declares.
    pub tables: Vec<TableSpace>,
    /// Pages the store holds free for reuse (LMDB's freelist, SQLite's freelist, PostgreSQL's
    /// free space inside relations is in `unused_bytes` instead).
    pub free_bytes: u64,
    /// What the store keeps besides its tables and free pages: LMDB's meta pages and its free
    /// and main databases, SQLite's schema, a WAL or rollback journal on disk.
    pub other_bytes: u64,
}

impl StoreSpace {
    /// Bytes of keys and values in every table: the data the store holds.
    pub fn data_bytes(&self) -> u64 {
        self.tables
            .iter()
            .map(|t| t.key_bytes + t.value_bytes)
            .sum()
    }

    /// Bytes the backend accounts for: every table's pages, the free pages and the rest.
    pub fn accounted_bytes(&self) -> u64 {
        self.tables.iter().map(|t| t.stored_bytes).sum::<u64>() + self.free_bytes + self.other_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_accounted_bytes_add_up_their_parts() {
        let table = |stored| TableSpace {
            table: "t".into(),
            entries: 2,
            key_bytes: 10,
            value_bytes: 30,
            stored_bytes: stored,
            ..TableSpace::default()
        };
        let space = StoreSpace {
            page_bytes: 4096,
            tables: vec![table(4096), table(8192)],
            free_bytes: 4096,
            other_bytes: 100,
        };
        assert_eq!(space.data_bytes(), 80);
        assert_eq!(space.accounted_bytes(), 4096 + 8192 + 4096 + 100);
    }
}
