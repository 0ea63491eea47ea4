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
