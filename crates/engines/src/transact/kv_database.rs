//! [`KvDatabase`]: Transact 0.4.7's `Database` over a [`triebench_kv::Store`], so Transact's own
//! `MerkleState` runs on every kv profile, beside the engines that already do.
//!
//! Three tables ([`TRANSACT_TABLES`]): `transact_main` (Transact's nodes: the hex of a node's
//! hash -> its CBOR), and Transact's two indexes under their own names (`change_log`,
//! `duplicate_log`). The writer behaves as Transact's own `LmdbDatabase` writer does: its reads
//! see its pending writes, `put` of a present key is `DuplicateEntry` (Transact then counts a
//! duplicate), and `delete` of an absent key is LMDB's `MDB_NOTFOUND` message, which Transact's
//! pruning ignores by that exact text.

use std::sync::Arc;

use transact::database::error::DatabaseError;
use transact::database::{
    Database, DatabaseCursor, DatabaseReader, DatabaseReaderCursor, DatabaseWriter,
};
use transact::state::merkle::{CHANGE_LOG_INDEX, DUPLICATE_LOG_INDEX};
use triebench_kv::{KeyRange, ReadTx, Store, Table, WriteTx};

use crate::EngineError;

/// The tables a [`KvDatabase`] needs: open the store with these.
pub const TRANSACT_TABLES: &[&str] = &["transact_main", CHANGE_LOG_INDEX, DUPLICATE_LOG_INDEX];

/// What Transact's LMDB database says for a delete of an absent key (lmdb-zero's message),
/// which Transact's pruning matches to ignore it.
const NOT_FOUND: &str = "MDB_NOTFOUND: No matching key/data pair found";

/// Transact's `Database` over a kv store (shared: Transact clones its database handle).
#[derive(Debug)]
pub struct KvDatabase<S> {
    store: Arc<S>,
    main: Table,
    change_log: Table,
    duplicate_log: Table,
}

impl<S> Clone for KvDatabase<S> {
    fn clone(&self) -> Self {
        KvDatabase {
            store: Arc::clone(&self.store),
            main: self.main,
            change_log: self.change_log,
            duplicate_log: self.duplicate_log,
        }
    }
}

impl<S: Store> KvDatabase<S> {
    /// Transact's database on `store`, which must declare [`TRANSACT_TABLES`].
    pub fn new(store: S) -> Result<Self, EngineError> {
        Ok(KvDatabase {
            main: store.table("transact_main")?,
            change_log: store.table(CHANGE_LOG_INDEX)?,
            duplicate_log: store.table(DUPLICATE_LOG_INDEX)?,
            store: Arc::new(store),
        })
    }

    /// The kv store underneath.
    pub fn store(&self) -> &S {
        &self.store
    }

    fn index(&self, name: &str) -> Result<Table, DatabaseError> {
        match name {
            CHANGE_LOG_INDEX => Ok(self.change_log),
            DUPLICATE_LOG_INDEX => Ok(self.duplicate_log),
            _ => Err(DatabaseError::ReaderError(format!("Not an index: {name}"))),
        }
    }
}

/// A read or write transaction of the store, as Transact's reader or writer.
struct Tx<'a, S, T> {
    tx: T,
    db: &'a KvDatabase<S>,
}

fn read_error(e: impl std::fmt::Display) -> DatabaseError {
    DatabaseError::ReaderError(e.to_string())
}

fn write_error(e: impl std::fmt::Display) -> DatabaseError {
    DatabaseError::WriterError(e.to_string())
}

/// A cursor over entries read whole (Transact's own BTree cursor copies its map too).
struct Cursor(
    std::vec::IntoIter<(Vec<u8>, Vec<u8>)>,
    Vec<(Vec<u8>, Vec<u8>)>,
);

impl Iterator for Cursor {
    type Item = (Vec<u8>, Vec<u8>);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

impl DatabaseReaderCursor for Cursor {
    fn seek_first(&mut self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.1.first().cloned()
    }

    fn seek_last(&mut self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.1.last().cloned()
    }
}

impl<S: Store, T: ReadTx> Tx<'_, S, T> {
    fn cursor_of(&self, table: Table) -> Result<DatabaseCursor<'static>, DatabaseError> {
        let entries = self
            .tx
            .collect(table, &KeyRange::all())
            .map_err(read_error)?;
        Ok(Box::new(Cursor(entries.clone().into_iter(), entries)))
    }

    fn count_of(&self, table: Table) -> Result<usize, DatabaseError> {
        let n = self.tx.count(table).map_err(read_error)?;
        usize::try_from(n).map_err(read_error)
    }
}

impl<S: Store, T: ReadTx> DatabaseReader for Tx<'_, S, T> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, DatabaseError> {
        self.tx.get(self.db.main, key).map_err(read_error)
    }

    fn index_get(&self, index: &str, key: &[u8]) -> Result<Option<Vec<u8>>, DatabaseError> {
        self.tx.get(self.db.index(index)?, key).map_err(read_error)
    }

    fn cursor(&self) -> Result<DatabaseCursor<'_>, DatabaseError> {
        self.cursor_of(self.db.main)
    }

    fn index_cursor(&self, index: &str) -> Result<DatabaseCursor<'_>, DatabaseError> {
        self.cursor_of(self.db.index(index)?)
    }

    fn count(&self) -> Result<usize, DatabaseError> {
        self.count_of(self.db.main)
    }

    fn index_count(&self, index: &str) -> Result<usize, DatabaseError> {
        self.count_of(self.db.index(index)?)
    }
}

impl<S: Store, T: WriteTx> Tx<'_, S, T> {
    fn delete_present(&mut self, table: Table, key: &[u8]) -> Result<(), DatabaseError> {
        if !self.tx.contains(table, key).map_err(write_error)? {
            return Err(DatabaseError::WriterError(NOT_FOUND.to_string()));
        }
        self.tx.delete(table, key).map_err(write_error)
    }
}

impl<S: Store, T: WriteTx> DatabaseWriter for Tx<'_, S, T> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), DatabaseError> {
        if self.tx.contains(self.db.main, key).map_err(write_error)? {
            return Err(DatabaseError::DuplicateEntry);
        }
        self.tx.put(self.db.main, key, value).map_err(write_error)
    }

    fn overwrite(&mut self, key: &[u8], value: &[u8]) -> Result<(), DatabaseError> {
        self.tx.put(self.db.main, key, value).map_err(write_error)
    }

    fn delete(&mut self, key: &[u8]) -> Result<(), DatabaseError> {
        self.delete_present(self.db.main, key)
    }

    fn index_put(&mut self, index: &str, key: &[u8], value: &[u8]) -> Result<(), DatabaseError> {
        let table = self.db.index(index).map_err(write_error)?;
        self.tx.put(table, key, value).map_err(write_error)
    }

    fn index_delete(&mut self, index: &str, key: &[u8]) -> Result<(), DatabaseError> {
        let table = self.db.index(index).map_err(write_error)?;
        self.delete_present(table, key)
    }

    fn commit(self: Box<Self>) -> Result<(), DatabaseError> {
        self.tx.commit().map_err(write_error)
    }

    fn as_reader(&self) -> &dyn DatabaseReader {
        self
    }
}

impl<S: Store + 'static> Database for KvDatabase<S> {
    fn get_reader<'a>(&'a self) -> Result<Box<dyn DatabaseReader + 'a>, DatabaseError> {
        Ok(Box::new(Tx {
            tx: self.store.reader().map_err(read_error)?,
            db: self,
        }))
    }

    fn get_writer<'a>(&'a self) -> Result<Box<dyn DatabaseWriter + 'a>, DatabaseError> {
        Ok(Box::new(Tx {
            tx: self.store.writer().map_err(write_error)?,
            db: self,
        }))
    }

    fn clone_box(&self) -> Box<dyn Database> {
        Box::new(self.clone())
    }
}
