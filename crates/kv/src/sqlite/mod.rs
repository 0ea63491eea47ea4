//! The SQLite profiles: one database file, `triebench.sqlite3`, in the store's directory.
//!
//! **Layout** (1, recorded as the database's `user_version`). Each declared table is a rowid
//! table `(key BLOB, value BLOB)`, its rows appended in the order they are written, with a
//! unique index of each key's *head*, its first 8 bytes (`"<table>:head"`, an index on
//! `substr(key, 1, 8)`). A lookup finds the row with the key's head through that index and
//! compares the whole key in the row; an insert's uniqueness check is the index's own. Trie keys
//! are 32-byte hashes, whose heads tell them apart.
//!
//! Two keys with one head cannot both have a row: the second, and every key shorter than 8
//! bytes, goes to the table's *spill table* `"<table>:spill"`, `(key BLOB PRIMARY KEY, value
//! BLOB)`. A key is spilled only while another key holds its head: when a row is deleted, the
//! first spilled key with its head takes the row. So a lookup whose head has no row knows the
//! key is absent without asking the spill table; one whose head is another key's asks it. A
//! scan merges the rows (in head order, which is key order) with the spill table's keys. For
//! hash keys the spill table stays empty: two of 30 million keys share a head with odds of
//! about 1 in 40,000.
//!
//! Why this layout: the store holds each key once in full. Earlier triebench stores had a `key
//! BLOB PRIMARY KEY`, whose index held every key a second time, whole: 40% of the data
//! (docs/findings/space.md). Those stores (`user_version` 0) are refused with
//! [`KvError::OtherLayout`](crate::KvError::OtherLayout), their tables left as they were; so
//! are newer layouts. Three other layouts that keep one copy of each key were tried and left.
//! A `WITHOUT ROWID` table reads a row that spills onto overflow pages (a node of many
//! children, up to ~13 KB) whole each time a key search compares against it. A rowid table
//! whose integer key is the head puts each new row at a random place in the table, so a large
//! commit dirties far more pages than appending rows does: the fill to 10^6 leaves ran 1.5x
//! slower. A head index that is not unique needs a search of its own before each insert to keep
//! keys unique: the fill's writes took twice as long. Here rows are appended, the index is a
//! quarter of a full key index, a value's overflow pages are read only when the value is asked
//! for, and `contains` reads only the key.
//!
//! | mode | pragmas | a commit survives | readers see |
//! |---|---|---|---|
//! | [`SqliteMode::Wal`] (`sqlite-wal`) | `journal_mode=WAL`, `synchronous=NORMAL` | a process crash; fsync happens only at checkpoints, so power loss can drop the latest commits (never corrupts) | a snapshot |
//! | [`SqliteMode::WalFull`] (`sqlite-wal-full`) | `journal_mode=WAL`, `synchronous=FULL` | power loss: the WAL is fsynced at every commit | a snapshot |
//! | [`SqliteMode::Rollback`] (`sqlite-rollback`) | `journal_mode=DELETE`, `synchronous=FULL` | power loss: journal and database are fsynced at every commit | committed data, per statement |
//! | [`SqliteMode::WalMmap`] (`sqlite-wal-mmap`) | `sqlite-wal`'s, plus `mmap_size` = [`MMAP_BYTES`] | as `sqlite-wal` (writes never go through the map) | a snapshot |
//! | [`SqliteMode::WalFullMmap`] (`sqlite-wal-full-mmap`) | `sqlite-wal-full`'s, plus `mmap_size` = [`MMAP_BYTES`] | power loss, as `sqlite-wal-full` | a snapshot |
//!
//! The pragmas are applied to, and read back from, every connection the store opens (Transact
//! 0.3.7 set them on one pooled connection only), and every connection has a busy timeout of
//! [`BUSY_TIMEOUT`] and a `journal_size_limit` of 16 MiB (a WAL is cut back to it when it starts
//! over, instead of staying as large as the largest commit made it).
//!
//! **Connections.** Readers and the writer take connections from one pool and give them back
//! when they drop; the pool hands out the most recently used connection first, whose page cache
//! is still valid after its own commit (a connection that finds the database changed by another
//! drops its whole cache; see `store`). Every connection gets a page cache of `CACHE_KIB` (4 MiB
//! at most; SQLite's default is 2 MiB; a larger one made commits slower, see `connect`).
//!
//! **Writer.** A process-level mutex: [`Store::writer`] blocks until the previous writer is
//! committed or dropped, then runs `BEGIN IMMEDIATE` on a pooled connection, so another process
//! cannot slip a write in between. Dropping an uncommitted writer runs `ROLLBACK`.
//!
//! **Readers.** In
//! the WAL modes a reader runs `BEGIN DEFERRED` plus a first read, which pins the WAL snapshot:
//! it sees the database as of [`Store::reader`], whatever commits later, and never blocks the
//! writer. In rollback mode a reader that held its `SHARED` lock for its lifetime would stop
//! every commit (the commit needs an `EXCLUSIVE` lock) until the reader is dropped, and a thread
//! holding a reader while committing would deadlock itself. So rollback-mode readers run each
//! get, count or scan as its own autocommit statement: each statement sees one committed state,
//! but two reads of one reader may straddle a commit (no snapshot; `snapshot_reads` is false).
//! A scan holds the lock while its visitor runs; a commit waits for it, up to the busy timeout.
//!
//! **Checkpoints.** In the WAL modes SQLite's auto-checkpoint is replaced by a hook that does
//! the same and, when a commit leaves the log long (16 MiB or more: a large commit, or readers
//! running back to back that keep the checkpoint from ever finishing, which let the WAL grow by
//! hundreds of MB a minute under `triebench load`), has the writer wait briefly for readers
//! after its commit, copy everything back and cut the log to zero bytes (`checkpoint`): the
//! commit that made the log long pays for cutting it, not the next one.
//! The durability pragmas are unchanged; without readers nothing differs.
//!
//! **Layout**, each module using only those before it: `mode` (the pragmas and busy timeout
//! per profile), `error` (rusqlite errors as [`KvError`](crate::KvError)), `checkpoint` (the
//! WAL hook), `connect` (opening a connection with its pragmas checked), `schema` (table
//! names, the layout check, `CREATE TABLE` and the head index, per-table statements), `store` ([`SqliteStore`]: the file, the
//! tables, the writer lock, the one pool of connections), `query` (transaction control and the
//! reads both transactions share), `pooled` (a connection taken from the pool for one
//! transaction and handed back, rolled back, when it drops), then `reader` and `writer`; this
//! module hands them out through [`Store`].

mod accounting;
mod checkpoint;
mod connect;
mod error;
mod mode;
mod pooled;
mod query;
mod reader;
mod schema;
mod store;
mod writer;

pub use mode::{SqliteMode, BUSY_TIMEOUT, MMAP_BYTES};
pub use reader::SqliteReader;
pub use store::{SqliteStore, DB_FILE};
pub use writer::SqliteWriter;

use crate::error::KvResult;
use crate::store::Store;

impl Store for SqliteStore {
    type Reader<'s> = SqliteReader<'s>;
    type Writer<'s> = SqliteWriter<'s>;

    fn reader(&self) -> KvResult<SqliteReader<'_>> {
        SqliteReader::begin(self)
    }

    fn writer(&self) -> KvResult<SqliteWriter<'_>> {
        SqliteWriter::begin(self)
    }

    fn table_names(&self) -> &[String] {
        &self.names
    }

    fn space(&self) -> KvResult<Option<triebench_record::space::StoreSpace>> {
        self.account_space().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;
    use crate::store::{ReadTx, WriteTx};

    fn pragmas(conn: &Connection) -> (String, i64, i64) {
        let journal = conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .expect("journal_mode");
        let sync = conn
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .expect("synchronous");
        let mmap = conn
            .query_row("PRAGMA mmap_size", [], |row| row.get(0))
            .expect("mmap_size");
        (journal, sync, mmap)
    }

    #[test]
    fn every_connection_gets_the_modes_pragmas() {
        for mode in [
            SqliteMode::Wal,
            SqliteMode::WalFull,
            SqliteMode::Rollback,
            SqliteMode::WalMmap,
            SqliteMode::WalFullMmap,
        ] {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = SqliteStore::open(dir.path(), &["main"], mode).expect("open");
            let expected = (
                mode.journal_mode().to_string(),
                mode.synchronous().1,
                mode.mmap_bytes().unwrap_or(0),
            );
            // Three readers at once: the pooled connection and two new ones.
            let readers: Vec<_> = (0..3).map(|_| store.reader().expect("reader")).collect();
            for reader in &readers {
                assert_eq!(pragmas(reader.conn().expect("conn")), expected, "{mode:?}");
            }
            assert_eq!(store.pool.lock().expect("pool").len(), 0);
            drop(readers);
            assert_eq!(store.pool.lock().expect("pool").len(), 3);
            let writer = store.writer().expect("writer");
            assert_eq!(pragmas(writer.conn().expect("conn")), expected, "{mode:?}");
            assert_eq!(store.pool.lock().expect("pool").len(), 2);
            // Pooled connections come back outside any transaction.
            drop(writer);
            let pool = store.pool.lock().expect("pool");
            assert_eq!(pool.len(), 3);
            for conn in pool.iter() {
                assert!(conn.is_autocommit());
                let cache: i64 = conn
                    .query_row("PRAGMA cache_size", [], |row| row.get(0))
                    .expect("cache_size");
                assert_eq!(cache, -i64::from(connect::CACHE_KIB));
            }
        }
    }

    #[test]
    fn the_next_reader_gets_the_connection_that_committed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path(), &["main"], SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("table");
        let mut writer = store.writer().expect("writer");
        writer.put(table, b"k", b"v").expect("put");
        // A temporary table exists only on the connection that made it: a mark on this one.
        writer
            .conn()
            .expect("conn")
            .execute_batch("CREATE TEMP TABLE committed_here (x)")
            .expect("mark");
        writer.commit().expect("commit");
        let reader = store.reader().expect("reader");
        let marked: i64 = reader
            .conn()
            .expect("conn")
            .query_row(
                "SELECT count(*) FROM temp.sqlite_master WHERE name = 'committed_here'",
                [],
                |row| row.get(0),
            )
            .expect("look for the mark");
        assert_eq!(
            marked, 1,
            "the reader got another connection than the writer's"
        );
        assert_eq!(reader.get(table, b"k").expect("get"), Some(b"v".to_vec()));
    }

    /// Every statement that looks a row up finds it through the head index, never by reading
    /// the whole table (which the SQL alone would also answer, only slowly: a test of the
    /// answers cannot see it).
    #[test]
    fn lookups_use_the_head_index() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path(), &["main"], SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("table");
        let sql = store.table_sql(table).expect("sql");
        let reader = store.reader().expect("reader");
        let conn = reader.conn().expect("conn");
        for text in [
            &sql.get,
            &sql.key_of,
            &sql.update,
            &sql.delete,
            &sql.scan_from,
        ] {
            let mut stmt = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {text}"))
                .expect("plan");
            let values: [&[u8]; 2] = [b"01234567", b"9"];
            let params = rusqlite::params_from_iter(&values[..stmt.parameter_count()]);
            let plan: Vec<String> = stmt
                .query_map(params, |row| row.get::<_, String>(3))
                .expect("plan rows")
                .collect::<Result<_, _>>()
                .expect("plan rows");
            let searches: Vec<&String> = plan.iter().filter(|l| l.contains("main")).collect();
            assert!(
                !searches.is_empty()
                    && searches.iter().all(|l| l.contains("USING INDEX main:head")),
                "{text}: {plan:?}"
            );
        }
    }

    /// Getting a key whose head's row holds another key never reads that key's value: a
    /// change-log entry and its additions share a head, and reading the entry used to read
    /// the additions' overflow pages (40 MB after a growth fill commit) before finding the
    /// entry in the spill table. Counted in pages SQLite's cache served or missed.
    #[test]
    fn a_get_reads_no_other_keys_value() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path(), &["main"], SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("table");
        let large = vec![9u8; 1 << 20];
        let mut writer = store.writer().expect("writer");
        // The first takes the head's row; the second, the same head, is spilled.
        writer.put(table, b"01234567-large", &large).expect("put");
        writer.put(table, b"01234567-small", b"v").expect("put");
        writer.commit().expect("commit");
        let reader = store.reader().expect("reader");
        let conn = reader.conn().expect("conn");
        let pages_touched = || {
            let mut total = 0;
            for op in [
                rusqlite::ffi::SQLITE_DBSTATUS_CACHE_HIT,
                rusqlite::ffi::SQLITE_DBSTATUS_CACHE_MISS,
            ] {
                let (mut now, mut high) = (0, 0);
                // SAFETY: the handle is the reader's open connection, used on this thread
                // only; the call writes the two integers it is given and resets the counter.
                let rc = unsafe {
                    rusqlite::ffi::sqlite3_db_status(conn.handle(), op, &mut now, &mut high, 1)
                };
                assert_eq!(rc, rusqlite::ffi::SQLITE_OK);
                total += now;
            }
            total
        };
        pages_touched();
        assert_eq!(
            reader.get(table, b"01234567-small").expect("get"),
            Some(b"v".to_vec())
        );
        let touched = pages_touched();
        // The 1 MiB value is 256 overflow pages; a lookup in the index, the row and the spill
        // table is a handful.
        assert!(touched < 32, "the get touched {touched} pages");
        assert_eq!(
            reader.get(table, b"01234567-large").expect("get"),
            Some(large)
        );
        assert!(
            pages_touched() > 256,
            "the large value was not read from its pages"
        );
    }

    /// Whether this process maps `file` (a line of `/proc/self/maps` ends with its path).
    #[cfg(target_os = "linux")]
    fn mapped(file: &std::path::Path) -> bool {
        let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
        let path = file.to_string_lossy();
        maps.lines().any(|line| line.ends_with(path.as_ref()))
    }

    /// A `-mmap` reader reads the database file through a mapping of it, and a plain WAL
    /// reader does not (both map the `-shm` file, which a path ending in the database file's
    /// name does not match).
    #[cfg(target_os = "linux")]
    #[test]
    fn only_the_mmap_modes_map_the_database_file() {
        for (mode, maps) in [
            (SqliteMode::WalMmap, true),
            (SqliteMode::WalFullMmap, true),
            (SqliteMode::Wal, false),
            (SqliteMode::WalFull, false),
        ] {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = SqliteStore::open(dir.path(), &["main"], mode).expect("open");
            let table = store.table("main").expect("table");
            let mut writer = store.writer().expect("writer");
            writer.put(table, b"k", &[5u8; 20_000]).expect("put");
            writer.commit().expect("commit");
            // The writer reads too (a put looks for the key's row first): a store opened
            // afresh, whose connections have read nothing yet.
            drop(store);
            let db = std::fs::canonicalize(dir.path().join(DB_FILE)).expect("db path");
            // A checkpoint moves the commit from the WAL into the file, where the reader finds
            // it.
            Connection::open(&db)
                .expect("open")
                .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
                .expect("checkpoint");
            let store = SqliteStore::open(dir.path(), &["main"], mode).expect("reopen");
            assert!(!mapped(&db), "{mode:?}: mapped before any read");
            let reader = store.reader().expect("reader");
            let read = reader.get_with(table, b"k", |v| v.len()).expect("get");
            assert_eq!(read, Some(20_000));
            assert_eq!(mapped(&db), maps, "{mode:?}");
        }
    }

    /// The size of the WAL file of the store in `dir`; 0 when there is none.
    fn wal_len(dir: &std::path::Path) -> u64 {
        let wal = dir.join(format!("{DB_FILE}-wal"));
        std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0)
    }

    /// Readers running back to back starve SQLite's own auto-checkpoint (the WAL grows with
    /// every commit); with the store's hook the log is cut once it is long, so the WAL file
    /// stays within that threshold plus a commit or two.
    #[test]
    fn the_wal_stays_bounded_with_readers_running() {
        use std::sync::atomic::{AtomicBool, Ordering};

        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path(), &["main"], SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("table");
        let value = vec![7u8; 3000];
        let stop = AtomicBool::new(false);
        let largest = std::thread::scope(|s| {
            // Two readers, each opening its next snapshot before it lets go of the last, as
            // readers running back to back do: some snapshot always predates the last commit.
            for _ in 0..2 {
                s.spawn(|| {
                    let mut held = store.reader().expect("reader");
                    while !stop.load(Ordering::Relaxed) {
                        let next = store.reader().expect("reader");
                        next.get(table, b"k0").expect("get");
                        held = next;
                        std::thread::sleep(std::time::Duration::from_micros(500));
                    }
                    drop(held);
                });
            }
            let mut largest = 0;
            for i in 0..4000 {
                let mut writer = store.writer().expect("writer");
                for j in 0..4 {
                    let key = format!("k{}", (i * 4 + j) % 3000);
                    writer.put(table, key.as_bytes(), &value).expect("put");
                }
                writer.commit().expect("commit");
                largest = largest.max(wal_len(dir.path()));
            }
            stop.store(true, Ordering::Relaxed);
            largest
        });
        let frame = 4096 + 24;
        let bound = (checkpoint::LONG_FRAMES as u64 + 200) * frame;
        assert!(
            largest <= bound,
            "the WAL grew to {largest} bytes (bound {bound}): checkpoints starved"
        );
    }

    /// A commit that leaves the log long cuts it to zero bytes before it returns, in both WAL
    /// modes (the space tests check the file sizes around it); a reader on the log only delays
    /// the cut to a later long commit.
    #[test]
    fn a_reader_on_the_log_delays_the_cut() {
        for mode in [SqliteMode::Wal, SqliteMode::WalFull] {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = SqliteStore::open(dir.path(), &["main"], mode).expect("open");
            let table = store.table("main").expect("table");
            let wal_len = || wal_len(dir.path());
            let value = vec![3u8; 3000];
            // ~6,000 pages, past the 4,000-frame threshold, in one commit.
            let large = |round: u32| {
                let mut writer = store.writer().expect("writer");
                for i in 0..6000u32 {
                    let key = format!("k{round}-{i}");
                    writer.put(table, key.as_bytes(), &value).expect("put");
                }
                writer.commit().expect("commit");
            };
            large(0);
            assert_eq!(wal_len(), 0, "{mode:?}: the long log was left behind");
            let reader = store.reader().expect("reader");
            reader.get(table, b"k0-0").expect("get");
            large(1);
            assert!(wal_len() > 0, "{mode:?}: cut with a reader on the log");
            drop(reader);
            large(2);
            assert_eq!(wal_len(), 0, "{mode:?}: the long log was left behind");
            let reader = store.reader().expect("reader");
            assert_eq!(
                reader.get(table, b"k1-5999").expect("get"),
                Some(value.clone())
            );
        }
    }
}
