//! The write transaction: `BEGIN IMMEDIATE` on the store's one writer connection, held under the
//! store's writer lock until commit or drop (which rolls back), so one writer runs at a time in
//! this process and no other process can slip a write in between.

use std::ops::ControlFlow;
use std::sync::{MutexGuard, PoisonError};

use rusqlite::{ffi, Connection};

use super::query::{contains_on, control, count_on, get_with_on, scan_on};
use super::store::SqliteStore;
use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::{ReadTx, Table, WriteTx};

/// The write transaction on a [`SqliteStore`]: `BEGIN IMMEDIATE` on the writer connection,
/// holding the store's writer lock until committed or dropped (which rolls back).
#[derive(Debug)]
pub struct SqliteWriter<'s> {
    store: &'s SqliteStore,
    pub(super) conn: MutexGuard<'s, Connection>,
}

impl<'s> SqliteWriter<'s> {
    /// Waits for the store's writer lock, then begins the write transaction.
    pub(super) fn begin(store: &'s SqliteStore) -> KvResult<SqliteWriter<'s>> {
        // A poisoned lock only means a writer's thread panicked; its drop rolled back (and if
        // that failed, the rollback is retried here).
        let conn = store.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if !conn.is_autocommit() {
            control(&conn, "ROLLBACK").map_err(|e| store.err(e))?;
        }
        control(&conn, "BEGIN IMMEDIATE").map_err(|e| store.err(e))?;
        Ok(SqliteWriter { store, conn })
    }
}

impl Drop for SqliteWriter<'_> {
    fn drop(&mut self) {
        if !self.conn.is_autocommit() {
            // Nothing useful to do with a failure here; the next writer retries the rollback.
            let _ = control(&self.conn, "ROLLBACK");
        }
    }
}

impl ReadTx for SqliteWriter<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        get_with_on(self.store, &self.conn, table, key, f)
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        count_on(self.store, &self.conn, table)
    }

    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        contains_on(self.store, &self.conn, table, key)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        scan_on(self.store, &self.conn, table, range, visit)
    }
}

impl WriteTx for SqliteWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let sql = self.store.table_sql(table)?;
        let result = self
            .conn
            .prepare_cached(&sql.insert)
            .and_then(|mut stmt| stmt.execute([key, value]));
        match result {
            Ok(_) => Ok(()),
            // A constraint failure aborts only this statement; the transaction stays usable.
            Err(rusqlite::Error::SqliteFailure(failure, _))
                if failure.extended_code == ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                Err(KvError::duplicate(&self.store.names[table.index()], key))
            }
            Err(e) => Err(self.store.err(e)),
        }
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let sql = self.store.table_sql(table)?;
        self.conn
            .prepare_cached(&sql.put)
            .and_then(|mut stmt| stmt.execute([key, value]))
            .map(drop)
            .map_err(|e| self.store.err(e))
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let sql = self.store.table_sql(table)?;
        self.conn
            .prepare_cached(&sql.delete)
            .and_then(|mut stmt| stmt.execute([key]))
            .map(drop)
            .map_err(|e| self.store.err(e))
    }

    fn commit(self) -> KvResult<()> {
        // On failure the transaction is still open and `drop` rolls it back.
        control(&self.conn, "COMMIT").map_err(|e| self.store.err(e))
    }
}
