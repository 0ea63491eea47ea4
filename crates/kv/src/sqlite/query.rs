//! The statements run on one connection: transaction control, and the reads (get, count, ordered
//! scan) that the reader and the writer share, so both answer them with the same SQL and the same
//! checks on what comes back.

use std::ops::ControlFlow;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::error::BACKEND;
use super::store::SqliteStore;
use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::Table;

/// Runs a cached transaction-control statement such as `BEGIN IMMEDIATE` or `ROLLBACK`.
pub(super) fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// The bytes of a stored key or value.
fn bytes<'a>(store: &SqliteStore, table: Table, value: ValueRef<'a>) -> KvResult<&'a [u8]> {
    match value {
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

pub(super) fn contains_on(
    store: &SqliteStore,
    conn: &Connection,
    table: Table,
    key: &[u8],
) -> KvResult<bool> {
    let sql = store.table_sql(table)?;
    let mut stmt = conn.prepare_cached(&sql.exists).map_err(|e| store.err(e))?;
    let mut rows = stmt.query([key]).map_err(|e| store.err(e))?;
    Ok(rows.next().map_err(|e| store.err(e))?.is_some())
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
