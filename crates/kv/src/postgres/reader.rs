//! Reads against committed data: each call one prepared statement (read-committed, no snapshot).

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::schema::lookup_sql;
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
    store.trip(1);
    let row = conn
        .client
        .query_opt(&conn.stmts.get[index], &[&key])
        .map_err(|e| store.error("get", e))?;
    Ok(row.map(|r| r.get::<_, Vec<u8>>(0)))
}

/// Whether `key` is committed, without fetching its value.
pub(crate) fn exists(store: &PgStore, index: usize, key: &[u8]) -> KvResult<bool> {
    let mut conn = store.lock();
    let conn = &mut *conn;
    store.trip(1);
    let row = conn
        .client
        .query_opt(&conn.stmts.exists[index], &[&key])
        .map_err(|e| store.error("exists", e))?;
    Ok(row.is_some())
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
    store.trip(1);
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
    let mut at: HashMap<&[u8], Vec<usize>> = HashMap::with_capacity(keys.len());
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

/// Committed entries among each ask's keys, every table's in one round trip (one statement,
/// see [`lookup_sql`]); each found entry handed to `f` with its ask's index and its key's index
/// in the ask (keys may repeat). An ask with no keys is left out; a single ask is
/// [`get_many_indexed`].
pub(crate) fn get_many_across(
    store: &PgStore,
    asks: &[(usize, &[&[u8]])],
    mut f: impl FnMut(usize, usize, &[u8]),
) -> KvResult<()> {
    let asked: Vec<usize> = (0..asks.len()).filter(|&a| !asks[a].1.is_empty()).collect();
    if let [a] = asked[..] {
        let (index, keys) = asks[a];
        return get_many_indexed(store, index, keys, |i, v| f(a, i, v));
    }
    if asked.is_empty() {
        return Ok(());
    }
    // Per ask: its distinct keys, and where each sits in the ask's keys.
    let mut at: Vec<HashMap<&[u8], Vec<usize>>> = Vec::with_capacity(asked.len());
    let mut distinct: Vec<Vec<&[u8]>> = Vec::with_capacity(asked.len());
    for &a in &asked {
        let mut positions: HashMap<&[u8], Vec<usize>> = HashMap::new();
        for (i, k) in asks[a].1.iter().enumerate() {
            positions.entry(k).or_default().push(i);
        }
        distinct.push(positions.keys().copied().collect());
        at.push(positions);
    }
    let tables: Vec<usize> = asked.iter().map(|&a| asks[a].0).collect();
    let mut conn = store.lock();
    let conn = &mut *conn;
    if !conn.stmts.lookups.contains_key(&tables) {
        let sql = lookup_sql(&conn.stmts.qualified, &tables);
        store.trip(1);
        let stmt = conn
            .client
            .prepare(&sql)
            .map_err(|e| store.error("prepare a lookup", e))?;
        conn.stmts.lookups.insert(tables.clone(), stmt);
    }
    let Some(stmt) = conn.stmts.lookups.get(&tables) else {
        return Ok(());
    };
    let params: Vec<&(dyn postgres::types::ToSql + Sync)> = distinct
        .iter()
        .map(|d| d as &(dyn postgres::types::ToSql + Sync))
        .collect();
    store.trip(1);
    let rows = conn
        .client
        .query(stmt, &params)
        .map_err(|e| store.error("get many (tables)", e))?;
    for row in rows {
        let (j, k, v): (i32, &[u8], &[u8]) = (row.get(0), row.get(1), row.get(2));
        let Some(j) = usize::try_from(j).ok().filter(|&j| j < asked.len()) else {
            continue;
        };
        if let Some(positions) = at[j].get(k) {
            for &i in positions {
                f(asked[j], i, v);
            }
        }
    }
    Ok(())
}

/// Committed entries of `range`, in key order.
pub(crate) fn entries(
    store: &PgStore,
    index: usize,
    range: &KeyRange,
) -> KvResult<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut conn = store.lock();
    let conn = &mut *conn;
    store.trip(1);
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
    store.trip(1);
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

    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        let index = check_table(table, self.store.names.len())?;
        exists(self.store, index, key)
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        let index = check_table(table, self.store.names.len())?;
        get_many_indexed(self.store, index, keys, f)
    }

    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        let asks = asks
            .iter()
            .map(|&(table, keys)| Ok((check_table(table, self.store.names.len())?, keys)))
            .collect::<KvResult<Vec<_>>>()?;
        get_many_across(self.store, &asks, f)
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
