//! The SQLite profiles: one database file, `triebench.sqlite3`, in the store's directory, with one
//! `WITHOUT ROWID` table `(key BLOB PRIMARY KEY, value BLOB NOT NULL)` per declared table. BLOB
//! keys compare with `memcmp` and then by length, which is the trait's byte order.
//!
//! | mode | pragmas | a commit survives | readers see |
//! |---|---|---|---|
//! | [`SqliteMode::Wal`] (`sqlite-wal`) | `journal_mode=WAL`, `synchronous=NORMAL` | a process crash; fsync happens only at checkpoints, so power loss can drop the latest commits (never corrupts) | a snapshot |
//! | [`SqliteMode::WalFull`] (`sqlite-wal-full`) | `journal_mode=WAL`, `synchronous=FULL` | power loss: the WAL is fsynced at every commit | a snapshot |
//! | [`SqliteMode::Rollback`] (`sqlite-rollback`) | `journal_mode=DELETE`, `synchronous=FULL` | power loss: journal and database are fsynced at every commit | committed data, per statement |
//!
//! The pragmas are applied to, and read back from, every connection the store opens (Transact
//! 0.3.7 set them on one pooled connection only), and every connection has a busy timeout of
//! [`BUSY_TIMEOUT`].
//!
//! **Writer.** One dedicated connection behind a process-level mutex: [`Store::writer`] blocks
//! until the previous writer is committed or dropped, then runs `BEGIN IMMEDIATE`, so another
//! process cannot slip a write in between. Dropping an uncommitted writer runs `ROLLBACK`.
//!
//! **Readers.** Connections come from a small pool and go back to it when the reader drops. In
//! the WAL modes a reader runs `BEGIN DEFERRED` plus a first read, which pins the WAL snapshot:
//! it sees the database as of [`Store::reader`], whatever commits later, and never blocks the
//! writer. In rollback mode a reader that held its `SHARED` lock for its lifetime would stop
//! every commit (the commit needs an `EXCLUSIVE` lock) until the reader is dropped, and a thread
//! holding a reader while committing would deadlock itself. So rollback-mode readers run each
//! get, count or scan as its own autocommit statement: each statement sees one committed state,
//! but two reads of one reader may straddle a commit (no snapshot; `snapshot_reads` is false).
//! A scan holds the lock while its visitor runs; a commit waits for it, up to the busy timeout.

use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::types::ValueRef;
use rusqlite::{ffi, Connection, ErrorCode, OpenFlags, TransactionBehavior};

use crate::store::{check_table, validate_tables};
use crate::{KeyRange, KvError, KvResult, ReadTx, Store, Table, WriteTx};

/// The database file's name inside the store's directory.
pub const DB_FILE: &str = "triebench.sqlite3";

/// How long a connection waits for a lock held by another connection before failing with a
/// "database is locked" error.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Idle reader connections kept for reuse; more concurrent readers open extra connections that
/// are closed when they finish.
const MAX_IDLE_READERS: usize = 32;

/// Prepared statements each table uses (see [`TableSql`]).
const STATEMENTS_PER_TABLE: usize = 7;

/// Transaction-control statements cached on top of the per-table ones.
const CONTROL_STATEMENTS: usize = 8;

const BACKEND: &str = "sqlite";

/// The journal and sync configuration of a SQLite store, one per profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqliteMode {
    /// Profile `sqlite-wal`: `journal_mode=WAL`, `synchronous=NORMAL`; fsync only at checkpoints.
    Wal,
    /// Profile `sqlite-wal-full`: `journal_mode=WAL`, `synchronous=FULL`; the WAL is fsynced at
    /// every commit.
    WalFull,
    /// Profile `sqlite-rollback`: `journal_mode=DELETE`, `synchronous=FULL`; atomic commit via a
    /// rollback journal, several fsyncs per commit.
    Rollback,
}

impl SqliteMode {
    /// The `journal_mode` pragma value, lower case as SQLite reports it back.
    fn journal_mode(self) -> &'static str {
        match self {
            SqliteMode::Wal | SqliteMode::WalFull => "wal",
            SqliteMode::Rollback => "delete",
        }
    }

    /// The `synchronous` pragma value, as a name and as the number SQLite reports back.
    fn synchronous(self) -> (&'static str, i64) {
        match self {
            SqliteMode::Wal => ("NORMAL", 1),
            SqliteMode::WalFull | SqliteMode::Rollback => ("FULL", 2),
        }
    }

    /// Whether readers see a snapshot (true for the WAL modes; rollback-mode readers see the
    /// latest commit at each statement, see the module docs).
    pub fn snapshot_reads(self) -> bool {
        !matches!(self, SqliteMode::Rollback)
    }
}

/// The SQL text of every statement on one table, built once at open so the per-operation path
/// only looks the prepared statement up in the connection's cache.
#[derive(Debug)]
struct TableSql {
    get: String,
    insert: String,
    put: String,
    delete: String,
    count: String,
    scan_from: String,
    scan_between: String,
}

impl TableSql {
    /// `name` passed `validate_tables` (ASCII letters, digits, `_`, `-`), so double-quoting it
    /// makes a valid identifier that cannot break out of the quotes.
    fn new(name: &str) -> Self {
        let t = format!("\"{name}\"");
        TableSql {
            get: format!("SELECT value FROM {t} WHERE key = ?1"),
            insert: format!("INSERT INTO {t} (key, value) VALUES (?1, ?2)"),
            put: format!(
                "INSERT INTO {t} (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ),
            delete: format!("DELETE FROM {t} WHERE key = ?1"),
            count: format!("SELECT count(*) FROM {t}"),
            scan_from: format!("SELECT key, value FROM {t} WHERE key >= ?1 ORDER BY key"),
            scan_between: format!(
                "SELECT key, value FROM {t} WHERE key >= ?1 AND key < ?2 ORDER BY key"
            ),
        }
    }
}

/// A store in one SQLite database file (profiles `sqlite-wal`, `sqlite-wal-full`,
/// `sqlite-rollback`).
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    mode: SqliteMode,
    names: Vec<String>,
    sql: Vec<TableSql>,
    cache_capacity: usize,
    /// The writer's dedicated connection; the mutex is the one-writer-at-a-time lock.
    writer: Mutex<Connection>,
    /// Idle reader connections.
    pool: Mutex<Vec<Connection>>,
}

impl SqliteStore {
    /// Opens (creating if needed) `dir/triebench.sqlite3` with `tables`, configured for `mode`.
    ///
    /// A directory that cannot be created or written is a [`KvError::Io`] naming the path; a
    /// file that is not a SQLite database, or a damaged one, is a [`KvError::Corrupt`].
    pub fn open(dir: &Path, tables: &[&str], mode: SqliteMode) -> KvResult<SqliteStore> {
        let names = validate_tables(tables)?;
        check_sql_names(&names)?;
        std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
        let path = dir.join(DB_FILE);
        // Probe with the OS first, so an unwritable directory or file reports the real errno
        // (SQLite only says "unable to open database file").
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| KvError::io("open database file", &path, e))?;
        let sql: Vec<TableSql> = names.iter().map(|n| TableSql::new(n)).collect();
        let cache_capacity = sql.len() * STATEMENTS_PER_TABLE + CONTROL_STATEMENTS;
        let mut writer = connect(&path, mode, cache_capacity)?;
        create_tables(&mut writer, &names).map_err(|e| sql_err(&path, e))?;
        Ok(SqliteStore {
            path,
            mode,
            names,
            sql,
            cache_capacity,
            writer: Mutex::new(writer),
            pool: Mutex::new(Vec::new()),
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

    fn table_sql(&self, table: Table) -> KvResult<&TableSql> {
        Ok(&self.sql[check_table(table, self.sql.len())?])
    }

    fn err(&self, err: rusqlite::Error) -> KvError {
        sql_err(&self.path, err)
    }

    /// An idle pooled connection, or a new one.
    fn take_connection(&self) -> KvResult<Connection> {
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
    fn give_back(&self, conn: Connection) {
        let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        if pool.len() < MAX_IDLE_READERS {
            pool.push(conn);
        }
    }
}

/// SQLite matches identifiers case-insensitively and reserves names starting with `sqlite_`;
/// reject declarations that would collide instead of silently sharing a table.
fn check_sql_names(names: &[String]) -> KvResult<()> {
    for (i, name) in names.iter().enumerate() {
        if name
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("sqlite_"))
        {
            return Err(KvError::InvalidTables(format!(
                "table name `{name}` starts with `sqlite_`, which SQLite reserves; rename it"
            )));
        }
        if let Some(other) = names[..i].iter().find(|o| o.eq_ignore_ascii_case(name)) {
            return Err(KvError::InvalidTables(format!(
                "tables `{other}` and `{name}` differ only in letter case, which SQLite does not \
                 distinguish; rename one"
            )));
        }
    }
    Ok(())
}

/// Opens a connection and applies the mode's pragmas, reading each back.
fn connect(path: &Path, mode: SqliteMode, cache_capacity: usize) -> KvResult<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| sql_err(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_err(path, e))?;
    conn.set_prepared_statement_cache_capacity(cache_capacity);

    let wanted = mode.journal_mode();
    let journal: String = conn
        .query_row(&format!("PRAGMA journal_mode = {wanted}"), [], |row| {
            row.get(0)
        })
        .map_err(|e| sql_err(path, e))?;
    if !journal.eq_ignore_ascii_case(wanted) {
        return Err(KvError::backend(
            BACKEND,
            format!(
                "{}: journal_mode={wanted} did not take effect (SQLite kept `{journal}`); the \
                 filesystem may not support it (WAL needs shared memory for its -shm file) or \
                 another process holds the database; try profile sqlite-rollback or another \
                 directory",
                path.display()
            ),
        ));
    }

    let (sync_name, sync_value) = mode.synchronous();
    conn.execute_batch(&format!("PRAGMA synchronous = {sync_name}"))
        .map_err(|e| sql_err(path, e))?;
    let sync: i64 = conn
        .query_row("PRAGMA synchronous", [], |row| row.get(0))
        .map_err(|e| sql_err(path, e))?;
    if sync != sync_value {
        return Err(KvError::backend(
            BACKEND,
            format!(
                "{}: synchronous={sync_name} did not take effect (SQLite reports {sync})",
                path.display()
            ),
        ));
    }
    Ok(conn)
}

/// Creates the declared tables that do not exist yet, in one transaction.
fn create_tables(conn: &mut Connection, names: &[String]) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for name in names {
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS \"{name}\" \
             (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID"
        ))?;
    }
    tx.commit()
}

/// Maps a rusqlite error onto the storage errors, naming the database file.
fn sql_err(path: &Path, err: rusqlite::Error) -> KvError {
    let code = match &err {
        rusqlite::Error::SqliteFailure(failure, _) => Some(failure.code),
        _ => None,
    };
    match code {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => KvError::Corrupt {
            backend: BACKEND,
            path: path.to_path_buf(),
            detail: err.to_string(),
        },
        Some(ErrorCode::CannotOpen) => {
            KvError::io("open database", path, io::Error::other(err.to_string()))
        }
        Some(ErrorCode::DiskFull) => KvError::io(
            "write database",
            path,
            io::Error::new(io::ErrorKind::StorageFull, err.to_string()),
        ),
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => KvError::io(
            "write database",
            path,
            io::Error::new(io::ErrorKind::PermissionDenied, err.to_string()),
        ),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => KvError::backend(
            BACKEND,
            format!(
                "{err}: {} stayed locked longer than the {} s busy timeout; another process may \
                 be writing it, or (sqlite-rollback) a scan's visitor is blocking a commit",
                path.display(),
                BUSY_TIMEOUT.as_secs()
            ),
        ),
        _ => KvError::backend(BACKEND, format!("{err} ({})", path.display())),
    }
}

/// Runs a cached transaction-control statement such as `BEGIN IMMEDIATE` or `ROLLBACK`.
fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// The bytes of a stored key or value.
fn bytes<'a>(store: &SqliteStore, table: Table, value: ValueRef<'a>) -> KvResult<&'a [u8]> {
    match value {
        ValueRef::Blob(b) | ValueRef::Text(b) => Ok(b),
        other => Err(KvError::Corrupt {
            backend: BACKEND,
            path: store.path.clone(),
            detail: format!(
                "table `{}` holds a {:?} where a BLOB belongs",
                store.names[table.index()],
                other.data_type()
            ),
        }),
    }
}

fn get_with_on<R, F>(
    store: &SqliteStore,
    conn: &Connection,
    table: Table,
    key: &[u8],
    f: F,
) -> KvResult<Option<R>>
where
    F: FnOnce(&[u8]) -> R,
{
    let sql = store.table_sql(table)?;
    let mut stmt = conn.prepare_cached(&sql.get).map_err(|e| store.err(e))?;
    let mut rows = stmt.query([key]).map_err(|e| store.err(e))?;
    match rows.next().map_err(|e| store.err(e))? {
        None => Ok(None),
        Some(row) => {
            let value = row.get_ref(0).map_err(|e| store.err(e))?;
            Ok(Some(f(bytes(store, table, value)?)))
        }
    }
}

fn count_on(store: &SqliteStore, conn: &Connection, table: Table) -> KvResult<u64> {
    let sql = store.table_sql(table)?;
    let mut stmt = conn.prepare_cached(&sql.count).map_err(|e| store.err(e))?;
    let count: i64 = stmt
        .query_row([], |row| row.get(0))
        .map_err(|e| store.err(e))?;
    // count(*) is never negative.
    Ok(count.unsigned_abs())
}

fn scan_on<F>(
    store: &SqliteStore,
    conn: &Connection,
    table: Table,
    range: &KeyRange,
    mut visit: F,
) -> KvResult<()>
where
    F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
{
    let sql = store.table_sql(table)?;
    let text = match range.end {
        None => &sql.scan_from,
        Some(_) => &sql.scan_between,
    };
    let mut stmt = conn.prepare_cached(text).map_err(|e| store.err(e))?;
    let start = range.start.as_slice();
    let rows = match &range.end {
        None => stmt.query([start]),
        Some(end) => stmt.query([start, end.as_slice()]),
    };
    let mut rows = rows.map_err(|e| store.err(e))?;
    while let Some(row) = rows.next().map_err(|e| store.err(e))? {
        let key = bytes(store, table, row.get_ref(0).map_err(|e| store.err(e))?)?;
        let value = bytes(store, table, row.get_ref(1).map_err(|e| store.err(e))?)?;
        if visit(key, value).is_break() {
            break;
        }
    }
    Ok(())
}

/// A read transaction on a [`SqliteStore`]: a pinned snapshot in the WAL modes, per-statement
/// reads of committed data in rollback mode. Its connection returns to the pool on drop.
#[derive(Debug)]
pub struct SqliteReader<'s> {
    store: &'s SqliteStore,
    /// Always `Some` until `drop` hands the connection back.
    conn: Option<Connection>,
}

impl SqliteReader<'_> {
    fn conn(&self) -> KvResult<&Connection> {
        self.conn
            .as_ref()
            .ok_or_else(|| KvError::backend(BACKEND, "reader used after its connection closed"))
    }
}

impl Drop for SqliteReader<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // End the read transaction; a connection that cannot is closed, not pooled.
            if conn.is_autocommit() || control(&conn, "ROLLBACK").is_ok() {
                self.store.give_back(conn);
            }
        }
    }
}

impl ReadTx for SqliteReader<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        get_with_on(self.store, self.conn()?, table, key, f)
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        count_on(self.store, self.conn()?, table)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        scan_on(self.store, self.conn()?, table, range, visit)
    }
}

/// The write transaction on a [`SqliteStore`]: `BEGIN IMMEDIATE` on the writer connection,
/// holding the store's writer lock until committed or dropped (which rolls back).
#[derive(Debug)]
pub struct SqliteWriter<'s> {
    store: &'s SqliteStore,
    conn: MutexGuard<'s, Connection>,
}

impl Drop for SqliteWriter<'_> {
    fn drop(&mut self) {
        if !self.conn.is_autocommit() {
            // Nothing useful to do with a failure here; the next writer retries the rollback.
            let _ = control(&self.conn, "ROLLBACK");
        }
    }
}

impl Store for SqliteStore {
    type Reader<'s> = SqliteReader<'s>;
    type Writer<'s> = SqliteWriter<'s>;

    fn reader(&self) -> KvResult<SqliteReader<'_>> {
        let reader = SqliteReader {
            store: self,
            conn: Some(self.take_connection()?),
        };
        if self.mode.snapshot_reads() {
            // BEGIN DEFERRED takes no lock; the first read pins the WAL snapshot. On failure the
            // reader's drop rolls back.
            let conn = reader.conn()?;
            control(conn, "BEGIN DEFERRED").map_err(|e| self.err(e))?;
            conn.prepare_cached("SELECT 1 FROM sqlite_master LIMIT 1")
                .and_then(|mut stmt| stmt.query([])?.next().map(drop))
                .map_err(|e| self.err(e))?;
        }
        Ok(reader)
    }

    fn writer(&self) -> KvResult<SqliteWriter<'_>> {
        // A poisoned lock only means a writer's thread panicked; its drop rolled back (and if
        // that failed, the rollback is retried here).
        let conn = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if !conn.is_autocommit() {
            control(&conn, "ROLLBACK").map_err(|e| self.err(e))?;
        }
        control(&conn, "BEGIN IMMEDIATE").map_err(|e| self.err(e))?;
        Ok(SqliteWriter { store: self, conn })
    }

    fn table_names(&self) -> &[String] {
        &self.names
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pragmas(conn: &Connection) -> (String, i64) {
        let journal = conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .expect("journal_mode");
        let sync = conn
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .expect("synchronous");
        (journal, sync)
    }

    #[test]
    fn every_connection_gets_the_modes_pragmas() {
        for mode in [SqliteMode::Wal, SqliteMode::WalFull, SqliteMode::Rollback] {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = SqliteStore::open(dir.path(), &["main"], mode).expect("open");
            let expected = (mode.journal_mode().to_string(), mode.synchronous().1);
            // Three readers at once: three pooled connections.
            let readers: Vec<_> = (0..3).map(|_| store.reader().expect("reader")).collect();
            for reader in &readers {
                assert_eq!(pragmas(reader.conn().expect("conn")), expected, "{mode:?}");
            }
            assert_eq!(store.pool.lock().expect("pool").len(), 0);
            drop(readers);
            assert_eq!(store.pool.lock().expect("pool").len(), 3);
            let writer = store.writer().expect("writer");
            assert_eq!(pragmas(&writer.conn), expected, "{mode:?}");
            // Pooled readers come back outside any transaction.
            drop(writer);
            for conn in store.pool.lock().expect("pool").iter() {
                assert!(conn.is_autocommit());
            }
        }
    }
}
