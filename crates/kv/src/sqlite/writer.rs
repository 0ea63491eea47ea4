//! The write transaction: `BEGIN IMMEDIATE` on a pooled connection (the most recently used one,
//! whose page cache is warm), under the store's writer lock until commit or drop (which rolls
//! back), so one writer runs at a time in this process and no other process can slip a write in
//! between.

use std::ops::ControlFlow;
use std::sync::{MutexGuard, PoisonError};

use rusqlite::{ffi, Connection};

use super::checkpoint;
use super::pooled::Pooled;
use super::query::{contains_on, control, count_on, get_with_on, scan_on};
use super::store::SqliteStore;
use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::{ReadTx, Table, WriteTx};

/// The write transaction on a [`SqliteStore`]: `BEGIN IMMEDIATE` on a pooled connection,
/// holding the store's writer lock until committed or dropped (which rolls back). The connection
/// goes back to the pool either way.
#[derive(Debug)]
pub struct SqliteWriter<'s> {
    /// The pooled connection, handed back (rolled back first) when the writer drops.
    pooled: Pooled<'s>,
    /// Declared after `pooled`: the lock is released only once the connection is back in the
    /// pool.
    _exclusive: MutexGuard<'s, ()>,
}

impl<'s> SqliteWriter<'s> {
    /// Waits for the store's writer lock, then begins the write transaction.
    pub(super) fn begin(store: &'s SqliteStore) -> KvResult<SqliteWriter<'s>> {
        // A poisoned lock only means a writer's thread panicked; its drop rolled back or closed
        // its connection.
        let exclusive = store
            .writer_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let pooled = Pooled::take(store)?;
        // On failure (say, another process held the lock past the busy timeout) the connection
        // is still outside any transaction and goes back to the pool as `pooled` drops.
        control(pooled.conn()?, "BEGIN IMMEDIATE").map_err(|e| store.err(e))?;
        Ok(SqliteWriter {
            pooled,
            _exclusive: exclusive,
        })
    }

    /// The writer's connection.
    pub(super) fn conn(&self) -> KvResult<&Connection> {
        self.pooled.conn()
    }
}

impl ReadTx for SqliteWriter<'_> {
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

impl WriteTx for SqliteWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let sql = self.pooled.store.table_sql(table)?;
        let result = self
            .conn()?
            .prepare_cached(&sql.insert)
            .and_then(|mut stmt| stmt.execute([key, value]));
        match result {
            Ok(_) => Ok(()),
            // A constraint failure aborts only this statement; the transaction stays usable.
            Err(rusqlite::Error::SqliteFailure(failure, _))
                if failure.extended_code == ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                Err(KvError::duplicate(
                    &self.pooled.store.names[table.index()],
                    key,
                ))
            }
            Err(e) => Err(self.pooled.store.err(e)),
        }
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let sql = self.pooled.store.table_sql(table)?;
        self.conn()?
            .prepare_cached(&sql.put)
            .and_then(|mut stmt| stmt.execute([key, value]))
            .map(drop)
            .map_err(|e| self.pooled.store.err(e))
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let sql = self.pooled.store.table_sql(table)?;
        self.conn()?
            .prepare_cached(&sql.delete)
            .and_then(|mut stmt| stmt.execute([key]))
            .map(drop)
            .map_err(|e| self.pooled.store.err(e))
    }

    fn commit(self) -> KvResult<()> {
        // On failure the transaction is still open and `drop` rolls it back.
        let conn = self.conn()?;
        control(conn, "COMMIT").map_err(|e| self.pooled.store.err(e))?;
        checkpoint::restart_if_starved(conn).map_err(|e| self.pooled.store.err(e))
    }
}
