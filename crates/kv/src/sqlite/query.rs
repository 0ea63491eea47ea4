//! The statements run on one connection: transaction control, and the reads (get, count, ordered
//! scan) that the reader and the writer share, so both answer them with the same SQL and the same
//! checks on what comes back.

use std::ops::ControlFlow;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};

use super::error::BACKEND;
use super::schema::head;
use super::store::SqliteStore;
use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::Table;

/// Runs a cached transaction-control statement such as `BEGIN IMMEDIATE` or `ROLLBACK`.
pub(super) fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// Column `i` of `row`, a stored key or value, as bytes.
pub(super) fn column<'r>(
    store: &SqliteStore,
    table: Table,
    row: &'r Row<'_>,
    i: usize,
) -> KvResult<&'r [u8]> {
    match row.get_ref(i).map_err(|e| store.err(e))? {
        ValueRef::Blob(b) | ValueRef::Text(b) => Ok(b),
        other => Err(KvError::Corrupt {
            backend: BACKEND,
            path: store.path().to_path_buf(),
            detail: format!(
                "table `{}` holds a {:?} where a BLOB belongs",
                store.names[table.index()],
                other.data_type()
            ),
        }),
    }
}

/// Runs the cached statement `sql` with its one parameter, `param`, and hands its first row to
/// `f`; `None` if it returns no row. Every lookup of one row (by head or by spilled key) is one.
pub(super) fn first_row<R>(
    store: &SqliteStore,
    conn: &Connection,
    sql: &str,
    param: &[u8],
    f: impl FnOnce(&Row<'_>) -> KvResult<R>,
) -> KvResult<Option<R>> {
    let mut stmt = conn.prepare_cached(sql).map_err(|e| store.err(e))?;
    let mut rows = stmt.query([param]).map_err(|e| store.err(e))?;
    match rows.next().map_err(|e| store.err(e))? {
        None => Ok(None),
        Some(row) => f(row).map(Some),
    }
}

/// Where a key of [`HEAD_BYTES`](super::schema::HEAD_BYTES) bytes or more is: in the row of its
/// head, maybe in the spill table (its head is another key's), or nowhere (its head has no row:
/// a key is spilled only while another holds its head).
pub(super) enum Place {
    /// In the row of its head.
    Row,
    /// Maybe in the spill table.
    Spill,
    /// Absent.
    Absent,
}

/// Where `key` (whose head is `head`) is, reading only the key of the head's row (never a
/// large value's overflow pages).
pub(super) fn place_of(
    store: &SqliteStore,
    conn: &Connection,
    table: Table,
    key: &[u8],
    head: &[u8],
) -> KvResult<Place> {
    let sql = store.table_sql(table)?;
    let in_row = first_row(store, conn, &sql.key_of, head, |row| {
        Ok(column(store, table, row, 0)? == key)
    })?;
    Ok(match in_row {
        None => Place::Absent,
        Some(true) => Place::Row,
        Some(false) => Place::Spill,
    })
}

/// `key`'s value handed to `f`: from the row of its head if that row is the key's, else from
/// the spill table (a short key, or its head another key's); absent if its head has no row.
pub(super) fn get_with_on<R, F>(
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
    let spilled = |f: F| {
        first_row(store, conn, &sql.spill_get, key, |row| {
            Ok(f(column(store, table, row, 0)?))
        })
    };
    if head(key).is_none() {
        return spilled(f);
    }
    // `f` is called at most once: on the row's value if the row is this key's, else on the
    // spilled value.
    let mut f = Some(f);
    let in_row = first_row(store, conn, &sql.get, key, |row| {
        if column(store, table, row, 0)? != key {
            return Ok(None);
        }
        let value = column(store, table, row, 1)?;
        Ok(f.take().map(|f| f(value)))
    })?;
    match (in_row, f) {
        (Some(Some(found)), _) => Ok(Some(found)),
        // The head's row is another key's.
        (Some(None), Some(f)) => spilled(f),
        _ => Ok(None),
    }
}

/// Whether `key` is stored, reading keys only (never a value's overflow pages).
pub(super) fn contains_on(
    store: &SqliteStore,
    conn: &Connection,
    table: Table,
    key: &[u8],
) -> KvResult<bool> {
    if let Some(head) = head(key) {
        match place_of(store, conn, table, key, head)? {
            Place::Row => return Ok(true),
            Place::Absent => return Ok(false),
            Place::Spill => {}
        }
    }
    let sql = store.table_sql(table)?;
    Ok(first_row(store, conn, &sql.spill_exists, key, |_| Ok(()))?.is_some())
}

pub(super) fn count_on(store: &SqliteStore, conn: &Connection, table: Table) -> KvResult<u64> {
    let sql = store.table_sql(table)?;
    let mut stmt = conn.prepare_cached(&sql.count).map_err(|e| store.err(e))?;
    let count: i64 = stmt
        .query_row([], |row| row.get(0))
        .map_err(|e| store.err(e))?;
    // count(*) is never negative.
    Ok(count.unsigned_abs())
}

/// Visits the entries of `range` in key order: the rows (in head order, which is their keys'
/// order: one row per head) merged with the spill table's keys.
pub(super) fn scan_on<F>(
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
    let err = |e| store.err(e);
    let start = range.start.as_slice();
    let end = range.end.as_deref();
    let mut row_stmt = conn.prepare_cached(&sql.scan_from).map_err(err)?;
    // Every row at or after `start` has a head at or after `start`'s first 8 bytes (a shorter
    // start is a prefix of every key it is below); rows before `start` are skipped below.
    let head_from = &start[..start.len().min(super::schema::HEAD_BYTES)];
    let mut rows = row_stmt.query([head_from]).map_err(err)?;
    let mut spill_stmt = match end {
        None => conn.prepare_cached(&sql.spill_scan_from),
        Some(_) => conn.prepare_cached(&sql.spill_scan_between),
    }
    .map_err(err)?;
    let mut spilled = match end {
        None => spill_stmt.query([start]),
        Some(end) => spill_stmt.query([start, end]),
    }
    .map_err(err)?;
    let mut row_next = next_row(store, table, &mut rows, start)?;
    let mut spill_next = spilled.next().map_err(err)?;
    loop {
        let spill_key = match spill_next {
            Some(found) => Some(column(store, table, found, 0)?),
            None => None,
        };
        let take_row = match (&row_next, spill_key) {
            (None, None) => return Ok(()),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            // Never equal: a key is in its row or spilled, not both.
            (Some((row_key, _)), Some(spill_key)) => row_key.as_slice() < spill_key,
        };
        if take_row {
            let Some((key, value)) = row_next.take() else {
                return Ok(());
            };
            if range.is_past_end(&key) {
                // Rows come in key order: none after this is in the range either.
                continue;
            }
            if visit(&key, &value).is_break() {
                return Ok(());
            }
            row_next = next_row(store, table, &mut rows, start)?;
        } else if let (Some(found), Some(key)) = (spill_next, spill_key) {
            let value = column(store, table, found, 1)?;
            if visit(key, value).is_break() {
                return Ok(());
            }
            spill_next = spilled.next().map_err(err)?;
        }
    }
}

/// The next row at or after `start`, copied: the row is only borrowed until the next step of
/// `rows`, which the merge takes while it waits. Scans are a tool's step, not the trie's path.
fn next_row(
    store: &SqliteStore,
    table: Table,
    rows: &mut rusqlite::Rows<'_>,
    start: &[u8],
) -> KvResult<Option<(Vec<u8>, Vec<u8>)>> {
    let err = |e| store.err(e);
    while let Some(found) = rows.next().map_err(err)? {
        let key = column(store, table, found, 0)?;
        if key >= start {
            let value = column(store, table, found, 1)?;
            return Ok(Some((key.to_vec(), value.to_vec())));
        }
    }
    Ok(None)
}
