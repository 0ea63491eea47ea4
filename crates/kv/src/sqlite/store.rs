//! The store itself: the database file, the declared tables and their statements, the writer
//! lock and the pool of connections that readers and the writer share. Readers and writers
//! borrow it; the `Store` impl that hands them out lives in the parent module, so this one needs
//! neither and they can depend on it.
//!
//! **Why one pool for both.** A connection's page cache stays valid across its transactions only
//! as long as no *other* connection changed the database: a read transaction that finds the
//! database changed drops its whole cache (in WAL mode, whenever the WAL-index header moved). The
//! connection that made the last commit is the one whose cache is still valid, so the pool is a
//! stack: the writer takes the most recently used connection and puts it back on top, and the next
//! reader (say, the trie checking the root it just committed) takes that same warm connection.
//! With a dedicated writer connection every reader after a commit started cold and reread its
//! pages from the file, which was most of the read time of a single-key commit.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rusqlite::Connection;

use super::connect::connect;
use super::error::{sql_err, BACKEND};
use super::mode::SqliteMode;
use super::schema::{check_sql_names, create_tables, TableSql, STATEMENTS_PER_TABLE};
use crate::error::{KvError, KvResult};
use crate::store::{check_table, validate_tables, Table};

/// The database file's name inside the store's directory.
pub const DB_FILE: &str = "triebench.sqlite3";

/// Idle connections kept for reuse; more concurrent readers open extra connections that are
/// closed when they finish.
const MAX_IDLE_CONNECTIONS: usize = 32;

/// Transaction-control statements cached on top of the per-table ones.
const CONTROL_STATEMENTS: usize = 8;

/// A store in one SQLite database file (profiles `sqlite-wal`, `sqlite-wal-full`,
/// `sqlite-rollback`, `sqlite-wal-mmap`, `sqlite-wal-full-mmap`).
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    mode: SqliteMode,
    pub(super) names: Vec<String>,
    sql: Vec<TableSql>,
    cache_capacity: usize,
    /// The one-writer-at-a-time lock, held by a writer for its life.
    pub(super) writer_lock: Mutex<()>,
    /// Idle connections, most recently used last (see the module docs).
    pub(super) pool: Mutex<Vec<Connection>>,
}

impl SqliteStore {
    /// Opens (creating if needed) `dir/triebench.sqlite3` with `tables`, configured for `mode`.
    ///
    /// A directory that cannot be created or written is a [`KvError::Io`] naming the path; a
    /// file that is not a SQLite database, or a damaged one, is a [`KvError::Corrupt`].
    /// As root, a `dir` another user can write to is refused ([`KvError::SharedStoreDir`]).
    pub fn open(dir: &Path, tables: &[&str], mode: SqliteMode) -> KvResult<SqliteStore> {
        let names = validate_tables(tables)?;
        check_sql_names(&names)?;
        crate::store_dir::create_store_dir(dir)?;
        let path = dir.join(DB_FILE);
        let existed = std::fs::symlink_metadata(&path).is_ok();
        // Probe with the OS first, so an unwritable directory or file reports the real errno
        // (SQLite only says "unable to open database file").
        // Created 0600 (and an older file of ours narrowed to it): SQLite gives its `-wal`,
        // `-shm` and `-journal` files the database file's mode, so the store is its owner's
        // alone (issue 48).
        let probe = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(crate::store_dir::FILE_MODE)
            .open(&path)
            .map_err(|e| KvError::io("open database file", &path, e))?;
        crate::store_dir::narrow_to_owner(&probe, &path)?;
        let sql: Vec<TableSql> = names.iter().map(|n| TableSql::new(n)).collect();
        let cache_capacity = sql.len() * STATEMENTS_PER_TABLE + CONTROL_STATEMENTS;
        let mut writer = connect(&path, mode, cache_capacity)?;
        if let Err(refused) = create_tables(&mut writer, &names).map_err(|e| sql_err(&path, e))? {
            return Err(KvError::OtherLayout {
                backend: BACKEND,
                path,
                detail: refused.to_string(),
            });
        }
        if !existed {
            // SQLite syncs the directory of a journal it creates, never the database file's
            // own new name: without this a power cut may lose the file (crash-test --model
            // metadata).
            crate::store_dir::sync_dir(dir)?;
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                if std::fs::File::open(parent).is_ok() {
                    crate::store_dir::sync_dir(parent)?;
                }
            }
        }
        Ok(SqliteStore {
            path,
            mode,
            names,
            sql,
            cache_capacity,
            writer_lock: Mutex::new(()),
            pool: Mutex::new(vec![writer]),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The mode the store was opened with.
    pub fn mode(&self) -> SqliteMode {
        self.mode
    }

    pub(super) fn table_sql(&self, table: Table) -> KvResult<&TableSql> {
        Ok(&self.sql[check_table(table, self.sql.len())?])
    }

    pub(super) fn err(&self, err: rusqlite::Error) -> KvError {
        sql_err(&self.path, err)
    }

    /// The most recently used idle connection, or a new one.
    pub(super) fn take_connection(&self) -> KvResult<Connection> {
        let idle = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match idle {
            Some(conn) => Ok(conn),
            None => connect(&self.path, self.mode, self.cache_capacity),
        }
    }

    /// Returns a connection (outside any transaction) to the pool, or closes it if the pool is
    /// full.
    pub(super) fn give_back(&self, conn: Connection) {
        let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        if pool.len() < MAX_IDLE_CONNECTIONS {
            pool.push(conn);
        }
    }
}
