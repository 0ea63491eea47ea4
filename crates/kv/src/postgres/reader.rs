//! Reads against committed data: each call one prepared statement (read-committed, no snapshot).

use std::ops::ControlFlow;

use super::PgStore;
use crate::error::KvResult;
use crate::range::KeyRange;
use crate::store::{check_table, ReadTx, Table};

/// A reader of a [`PgStore`].
pub struct PgReader<'s> {
    pub(crate) store: &'s PgStore,
}

/// Committed value of `key`.
pub(crate) fn get(store: &PgStore, index: usize, key: &[u8]) -> KvResult<Option<Vec<u8>>> {
    let mut conn = store.lock();
    let conn = &mut *conn;
    let row = conn
        .client
        .query_opt(&conn.stmts.get[index], &[&key])
        .map_err(|e| store.error("get", e))?;
    Ok(row.map(|r| r.get::<_, Vec<u8>>(0)))
}

/// Committed entries among `keys`, in one round trip (`= ANY($1)`), each handed to `f` with its
/// key.
pub(crate) fn get_many(
    store: &PgStore,
    index: usize,
    keys: &[&[u8]],
    mut f: impl FnMut(&[u8], &[u8]),
) -> KvResult<()> {
    if keys.is_empty() {
        return Ok(());
    }
    let mut conn = store.lock();
    let conn = &mut *conn;
    if let [key] = keys {
        // One key: the plain lookup, whose plan is the primary key's index whatever the
        // table's size when the plan was cached.
        let row = conn
            .client
            .query_opt(&conn.stmts.get[index], &[key])
            .map_err(|e| store.error("get", e))?;
        if let Some(row) = row {
            f(key, row.get(0));
        }
        return Ok(());
    }
    let rows = conn
        .client
        .query(&conn.stmts.get_many[index], &[&keys])
        .map_err(|e| store.error("get many", e))?;
    for row in rows {
        let (k, v): (&[u8], &[u8]) = (row.get(0), row.get(1));
        f(k, v);
    }
    Ok(())
}

/// Hands each found entry of `keys` to `f` by its index in `keys` (keys may repeat).
pub(crate) fn get_many_indexed(
    store: &PgStore,
    index: usize,
    keys: &[&[u8]],
    mut f: impl FnMut(usize, &[u8]),
) -> KvResult<()> {
    let mut at: std::collections::HashMap<&[u8], Vec<usize>> =
        std::collections::HashMap::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        at.entry(k).or_default().push(i);
    }
    let distinct: Vec<&[u8]> = at.keys().copied().collect();
    get_many(store, index, &distinct, |k, v| {
        if let Some(positions) = at.get(k) {
            for &i in positions {
                f(i, v);
            }
        }
    })
}

/// Committed entries of `range`, in key order.
pub(crate) fn entries(
    store: &PgStore,
    index: usize,
    range: &KeyRange,
) -> KvResult<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut conn = store.lock();
    let conn = &mut *conn;
    let rows = match &range.end {
        Some(end) => conn
            .client
            .query(&conn.stmts.scan_between[index], &[&range.start, end]),
        None => conn
            .client
            .query(&conn.stmts.scan_from[index], &[&range.start]),
    }
    .map_err(|e| store.error("scan", e))?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Committed row count.
pub(crate) fn count(store: &PgStore, index: usize) -> KvResult<u64> {
    let mut conn = store.lock();
    let conn = &mut *conn;
    let row = conn
        .client
        .query_one(&conn.stmts.count[index], &[])
        .map_err(|e| store.error("count", e))?;
    Ok(row.get::<_, i64>(0).max(0) as u64)
}

impl ReadTx for PgReader<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let index = check_table(table, self.store.names.len())?;
        Ok(get(self.store, index, key)?.map(|v| f(&v)))
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let index = check_table(table, self.store.names.len())?;
        count(self.store, index)
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        let index = check_table(table, self.store.names.len())?;
        get_many_indexed(self.store, index, keys, f)
    }

    fn reads_are_round_trips(&self) -> bool {
        true
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let index = check_table(table, self.store.names.len())?;
        for (k, v) in entries(self.store, index, range)? {
            if visit(&k, &v).is_break() {
                break;
            }
        }
        Ok(())
    }
}
