//! Read transactions: a pooled connection per reader, pinned to a WAL snapshot in the WAL modes
//! and reading per statement in rollback mode (see the module docs for why), handed back to the
//! pool when the reader drops.

use std::ops::ControlFlow;

use rusqlite::Connection;

use super::pooled::Pooled;
use super::query::{contains_on, control, count_on, get_with_on, scan_on};
use super::store::SqliteStore;
use crate::error::KvResult;
use crate::range::KeyRange;
use crate::store::{ReadTx, Table};

/// A read transaction on a [`SqliteStore`]: a pinned snapshot in the WAL modes, per-statement
/// reads of committed data in rollback mode. Its connection returns to the pool on drop.
#[derive(Debug)]
pub struct SqliteReader<'s> {
    /// The pooled connection, handed back (rolled back first) when the reader drops.
    pooled: Pooled<'s>,
}

impl<'s> SqliteReader<'s> {
    /// Takes a connection for a new reader of `store` and, in the WAL modes, pins its snapshot.
    pub(super) fn begin(store: &'s SqliteStore) -> KvResult<SqliteReader<'s>> {
        let reader = SqliteReader {
            pooled: Pooled::take(store)?,
        };
        if store.mode().snapshot_reads() {
            // BEGIN DEFERRED takes no lock; the first read pins the WAL snapshot. On failure the
            // reader's drop rolls back.
            let conn = reader.conn()?;
            control(conn, "BEGIN DEFERRED").map_err(|e| store.err(e))?;
            conn.prepare_cached("SELECT 1 FROM sqlite_master LIMIT 1")
                .and_then(|mut stmt| stmt.query([])?.next().map(drop))
                .map_err(|e| store.err(e))?;
        }
        Ok(reader)
    }
}

impl SqliteReader<'_> {
    /// The reader's connection.
    pub(super) fn conn(&self) -> KvResult<&Connection> {
        self.pooled.conn()
    }
}

impl ReadTx for SqliteReader<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        get_with_on(self.pooled.store, self.conn()?, table, key, f)
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        count_on(self.pooled.store, self.conn()?, table)
    }

    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        contains_on(self.pooled.store, self.conn()?, table, key)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        scan_on(self.pooled.store, self.conn()?, table, range, visit)
    }
}
