//! Opening a connection: every connection the store opens gets the mode's pragmas, the busy
//! timeout, the page cache size, the memory map of the `-mmap` profiles and in the WAL modes the
//! store's checkpoint hook (`checkpoint`), and reads the durability and mmap pragmas back, so a
//! filesystem or build that cannot honour them fails at open instead of silently changing what
//! the profile measures.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::checkpoint;
use super::error::{sql_err, BACKEND};
use super::mode::{SqliteMode, BUSY_TIMEOUT};
use crate::error::{KvError, KvResult};

/// The page cache of each connection, in KiB (`PRAGMA cache_size = -CACHE_KIB`), twice SQLite's
/// default. Larger is slower here, not faster: at the end of every write transaction SQLite
/// trims its page cache, and because B-tree rebalancing briefly numbers a page past the
/// lock-byte page, the trim walks the cache's whole hash table, which grows with the pages
/// cached. With 64 MiB the `update` suite on tmpfs spent 7% of its time in that walk
/// (`pcache1TruncateUnsafe`), and a writer on a 100,000-leaf state made 135 commits/s against
/// 158-182 with 2-8 MiB; a page the cache misses is read from the OS page cache. It changes
/// nothing of what reaches the disk or when.
pub(super) const CACHE_KIB: u32 = 4 * 1024;

/// What a WAL is cut back to when it starts over (`PRAGMA journal_size_limit`): 16 MiB, four
/// times what the auto-checkpoint lets it reach between commits. Without a limit SQLite keeps the
/// file as large as the largest commit ever made it: beside a 10^4-leaf store the growth fill's
/// batches left an 83 MB WAL, 8.3 KB per leaf (findings/space.md).
const JOURNAL_LIMIT_BYTES: u64 = 16 << 20;

/// Opens a connection and applies the mode's pragmas, reading each back.
pub(super) fn connect(
    path: &Path,
    mode: SqliteMode,
    cache_capacity: usize,
) -> KvResult<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| sql_err(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_err(path, e))?;
    conn.set_prepared_statement_cache_capacity(cache_capacity);
    conn.execute_batch(&format!(
        "PRAGMA cache_size = -{CACHE_KIB}; PRAGMA journal_size_limit = {JOURNAL_LIMIT_BYTES}"
    ))
    .map_err(|e| sql_err(path, e))?;

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

    if let Some(bytes) = mode.mmap_bytes() {
        let mapped: i64 = conn
            .query_row(&format!("PRAGMA mmap_size = {bytes}"), [], |row| row.get(0))
            .map_err(|e| sql_err(path, e))?;
        if mapped != bytes {
            return Err(KvError::backend(
                BACKEND,
                format!(
                    "{}: mmap_size={bytes} did not take effect (SQLite reports {mapped}); this \
                     SQLite was built without memory-mapped I/O or with a smaller \
                     SQLITE_MAX_MMAP_SIZE; use the profile without `-mmap`",
                    path.display()
                ),
            ));
        }
    }

    if wanted == "wal" {
        // Replaces SQLite's auto-checkpoint with the same plus a cure for starvation.
        conn.wal_hook(Some(checkpoint::after_commit));
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
