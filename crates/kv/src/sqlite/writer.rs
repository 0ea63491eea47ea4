//! The write transaction: `BEGIN IMMEDIATE` on a pooled connection (the most recently used one,
//! whose page cache is warm), under the store's writer lock until commit or drop (which rolls
//! back), so one writer runs at a time in this process and no other process can slip a write in
//! between.

use std::ops::ControlFlow;
use std::sync::{MutexGuard, PoisonError};

use rusqlite::{ffi, Connection};

use super::checkpoint;
use super::pooled::Pooled;
use super::query::{
    column, contains_on, control, count_on, first_row, get_with_on, place_of, scan_on, Place,
};
use super::schema::head;
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

impl SqliteWriter<'_> {
    /// Runs a cached statement on the writer's connection; the rows it changed.
    fn run<P: rusqlite::Params>(&self, sql: &str, params: P) -> KvResult<usize> {
        self.conn()?
            .prepare_cached(sql)
            .and_then(|mut stmt| stmt.execute(params))
            .map_err(|e| self.pooled.store.err(e))
    }

    /// Spills `key`: a duplicate if already spilled.
    fn spill_insert(&self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let store = self.pooled.store;
        let sql = store.table_sql(table)?;
        let result = self
            .conn()?
            .prepare_cached(&sql.spill_insert)
            .and_then(|mut stmt| stmt.execute([key, value]));
        match result {
            Ok(_) => Ok(()),
            // A constraint failure aborts only this statement; the transaction stays usable.
            Err(rusqlite::Error::SqliteFailure(failure, _))
                if failure.extended_code == ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                Err(KvError::duplicate(&store.names[table.index()], key))
            }
            Err(e) => Err(store.err(e)),
        }
    }

    /// After the row of `head` was removed: the first spilled key with that head, if any,
    /// takes the row, so that a key is spilled only while another key holds its head (a lookup
    /// finding no row for a head then knows the key is absent).
    fn refill(&self, table: Table, head: &[u8]) -> KvResult<()> {
        let store = self.pooled.store;
        let sql = store.table_sql(table)?;
        // The first spilled key from `head` on, if it has that head.
        let first = first_row(store, self.conn()?, &sql.spill_first_from, head, |row| {
            let key = column(store, table, row, 0)?;
            if !key.starts_with(head) {
                return Ok(None);
            }
            Ok(Some((key.to_vec(), column(store, table, row, 1)?.to_vec())))
        })?
        .flatten();
        if let Some((key, value)) = first {
            self.run(&sql.insert, [&key, &value])?;
            self.run(&sql.spill_delete, [&key])?;
        }
        Ok(())
    }
}

/// The rows' one constraint is their head index: the writer keeps each key in one place, its
/// head's row or (that row another key's) the spill table.
impl WriteTx for SqliteWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let Some(head) = head(key) else {
            return self.spill_insert(table, key, value);
        };
        let store = self.pooled.store;
        let sql = store.table_sql(table)?;
        if self.run(&sql.insert, [key, value])? == 1 {
            return Ok(());
        }
        // The head has a row: this key's (a duplicate) or another's (spill this one).
        match place_of(store, self.conn()?, table, key, head)? {
            Place::Row => Err(KvError::duplicate(&store.names[table.index()], key)),
            Place::Spill | Place::Absent => self.spill_insert(table, key, value),
        }
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let sql = self.pooled.store.table_sql(table)?;
        // A new key whose head is free (nearly every put of a new trie node) is one statement.
        if head(key).is_some()
            && (self.run(&sql.insert, [key, value])? == 1
                || self.run(&sql.update, [key, value])? == 1)
        {
            return Ok(());
        }
        // Too short for a head, or its head is another key's.
        self.run(&sql.spill_put, [key, value]).map(drop)
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let sql = self.pooled.store.table_sql(table)?;
        if let Some(head) = head(key) {
            if self.run(&sql.delete, [key])? == 1 {
                return self.refill(table, head);
            }
        }
        self.run(&sql.spill_delete, [key]).map(drop)
    }

    fn commit(self) -> KvResult<()> {
        // On failure the transaction is still open and `drop` rolls it back.
        let conn = self.conn()?;
        control(conn, "COMMIT").map_err(|e| self.pooled.store.err(e))?;
        checkpoint::truncate_if_long(conn).map_err(|e| self.pooled.store.err(e))
    }
}
