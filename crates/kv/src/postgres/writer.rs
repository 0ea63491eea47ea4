//! The writer: changes buffered per table, checked eagerly for `insert`, and committed as one
//! statement in autocommit (a `DELETE ... = ANY(...)` and an `INSERT ... unnest(...)` per table
//! that has them, as data-modifying `WITH` clauses when there are several; see
//! [`commit_sql`]): one atomic transaction and one round trip whatever the number of puts.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::MutexGuard;

use super::reader::{count, entries, exists, get, get_many_across, get_many_indexed};
use super::schema::{commit_sql, Clause};
use super::PgStore;
use crate::error::{KvError, KvResult};
use crate::pending_asks::Unanswered;
use crate::range::KeyRange;
use crate::store::{check_table, require_on_commit, ReadTx, Table, WriteTx};

/// The single writer of a [`PgStore`]; dropping it without commit discards its changes.
pub struct PgWriter<'s> {
    store: &'s PgStore,
    /// Per table: key -> new value, or `None` for a delete.
    pending: Vec<BTreeMap<Vec<u8>, Option<Vec<u8>>>>,
    /// Per table: preconditions on committed keys, checked by the commit's statement: key ->
    /// the value it must hold, or `None` for "absent".
    required: Vec<BTreeMap<Vec<u8>, Option<Vec<u8>>>>,
    _exclusive: MutexGuard<'s, ()>,
}

impl<'s> PgWriter<'s> {
    pub(crate) fn new(store: &'s PgStore, exclusive: MutexGuard<'s, ()>) -> Self {
        PgWriter {
            store,
            pending: vec![BTreeMap::new(); store.names.len()],
            required: vec![BTreeMap::new(); store.names.len()],
            _exclusive: exclusive,
        }
    }

    fn index(&self, table: Table) -> KvResult<usize> {
        check_table(table, self.store.names.len())
    }

    /// A precondition (`expected`: `None` absent, else these bytes): checked now against this
    /// writer's pending change of the key if it has one, else kept for the commit's statement.
    fn require(&mut self, table: Table, key: &[u8], expected: Option<&[u8]>) -> KvResult<()> {
        let index = self.index(table)?;
        let pending = self.pending[index].get(key).map(Option::as_deref);
        require_on_commit(table, key, expected, pending, &mut self.required[index])
    }

    /// Which of `keys` are committed.
    fn existing(&self, index: usize, keys: Vec<&[u8]>) -> KvResult<Vec<Vec<u8>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.store.lock();
        let conn = &mut *conn;
        self.store.trip(1);
        let rows = conn
            .client
            .query(&conn.stmts.existing[index], &[&keys])
            .map_err(|e| self.store.error("lookup", e))?;
        Ok(rows.into_iter().map(|r| r.get(0)).collect())
    }
}

impl ReadTx for PgWriter<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let index = self.index(table)?;
        match self.pending[index].get(key) {
            Some(Some(v)) => Ok(Some(f(v))),
            Some(None) => Ok(None),
            None => Ok(get(self.store, index, key)?.map(|v| f(&v))),
        }
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], mut f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        let index = self.index(table)?;
        let pending = &self.pending[index];
        // Pending changes answer for their keys; the rest go to the server in one request.
        let mut asked: Vec<&[u8]> = Vec::with_capacity(keys.len());
        let mut positions: Vec<usize> = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            match pending.get(*key) {
                Some(Some(v)) => f(i, v),
                Some(None) => {}
                None => {
                    asked.push(key);
                    positions.push(i);
                }
            }
        }
        get_many_indexed(self.store, index, &asked, |j, v| f(positions[j], v))
    }

    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], mut f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        // Pending changes answer for their keys; the rest of every ask go in one request.
        let rest = Unanswered::split(
            asks,
            |table| self.index(table),
            |i, key| self.pending[i].get(key).map(Option::as_deref),
            &mut f,
        )?;
        get_many_across(self.store, &rest.tables(), |a, j, v| {
            f(a, rest.position(a, j), v)
        })
    }

    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        let index = self.index(table)?;
        match self.pending[index].get(key) {
            Some(v) => Ok(v.is_some()),
            None => exists(self.store, index, key),
        }
    }

    fn reads_are_round_trips(&self) -> bool {
        true
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let index = self.index(table)?;
        let pending = &self.pending[index];
        let committed = count(self.store, index)?;
        let existing = self.existing(index, pending.keys().map(Vec::as_slice).collect())?;
        let existing: std::collections::BTreeSet<&[u8]> =
            existing.iter().map(Vec::as_slice).collect();
        let mut n = committed as i64;
        for (k, v) in pending {
            match (v.is_some(), existing.contains(k.as_slice())) {
                (true, false) => n += 1,
                (false, true) => n -= 1,
                _ => {}
            }
        }
        Ok(n.max(0) as u64)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let index = self.index(table)?;
        let mut merged: BTreeMap<Vec<u8>, Vec<u8>> =
            entries(self.store, index, range)?.into_iter().collect();
        for (k, v) in &self.pending[index] {
            if !range.contains(k) {
                continue;
            }
            match v {
                Some(v) => {
                    merged.insert(k.clone(), v.clone());
                }
                None => {
                    merged.remove(k);
                }
            }
        }
        for (k, v) in &merged {
            if visit(k, v).is_break() {
                break;
            }
        }
        Ok(())
    }
}

impl WriteTx for PgWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let index = self.index(table)?;
        let present = match self.pending[index].get(key) {
            Some(v) => v.is_some(),
            None => exists(self.store, index, key)?,
        };
        if present {
            return Err(KvError::duplicate(&self.store.names[index], key));
        }
        self.pending[index].insert(key.to_vec(), Some(value.to_vec()));
        Ok(())
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let index = self.index(table)?;
        self.pending[index].insert(key.to_vec(), Some(value.to_vec()));
        Ok(())
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let index = self.index(table)?;
        self.pending[index].insert(key.to_vec(), None);
        Ok(())
    }

    fn require_absent(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        self.require(table, key, None)
    }

    fn require_value(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        self.require(table, key, Some(value))
    }

    /// Always: the commit's one statement checks them, and a read is a request of its own.
    fn prefers_preconditions(&self) -> bool {
        true
    }

    fn commit(self) -> KvResult<()> {
        // The commit's shape (which tables have preconditions, deletes, puts) and its arrays,
        // in clause order: a precondition's keys (and values); a delete's keys; an upsert's
        // keys, then values.
        let mut shape: Vec<Clause> = Vec::new();
        let mut arrays: Vec<Vec<&[u8]>> = Vec::new();
        let guarded = self.required.iter().any(|r| !r.is_empty());
        let mut add = |map, without: Clause, with: Clause| {
            let (keys, (with_keys, values)) = split(map);
            if !keys.is_empty() {
                shape.push(without);
                arrays.push(keys);
            }
            if !with_keys.is_empty() {
                shape.push(with);
                arrays.push(with_keys);
                arrays.push(values);
            }
        };
        for (index, required) in self.required.iter().enumerate() {
            add(required, Clause::Absent(index), Clause::Holds(index));
        }
        for (index, pending) in self.pending.iter().enumerate() {
            add(pending, Clause::Delete(index), Clause::Upsert(index));
        }
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = arrays
            .iter()
            .map(|a| a as &(dyn postgres::types::ToSql + Sync))
            .collect();
        let mut conn = self.store.lock();
        let conn = &mut *conn;
        // One statement in autocommit: atomic, one round trip.
        let stmt = match shape[..] {
            [] => return Ok(()),
            [Clause::Delete(index)] => conn.stmts.delete[index].clone(),
            [Clause::Upsert(index)] => conn.stmts.upsert[index].clone(),
            _ => match conn.stmts.commits.get(&shape) {
                Some(stmt) => stmt.clone(),
                None => {
                    let sql = commit_sql(&conn.stmts.qualified, &shape);
                    self.store.trip(1);
                    let stmt = conn
                        .client
                        .prepare(&sql)
                        .map_err(|e| self.store.error("prepare a commit", e))?;
                    conn.stmts.commits.insert(shape, stmt.clone());
                    stmt
                }
            },
        };
        self.store.trip(1);
        if !guarded {
            return conn
                .client
                .execute(&stmt, &params)
                .map(|_| ())
                .map_err(|e| self.store.error("commit", e));
        }
        let held: bool = conn
            .client
            .query_one(&stmt, &params)
            .and_then(|row| row.try_get(0))
            .map_err(|e| self.store.error("commit", e))?;
        if held {
            Ok(())
        } else {
            let keys: usize = self.required.iter().map(BTreeMap::len).sum();
            Err(KvError::PreconditionFailed {
                detail: format!(
                    "one of the {keys} keys it required no longer held what it expected when \
                     it committed"
                ),
            })
        }
    }
}

/// Keys without a value, then keys with one and their values.
type Split<'a> = (Vec<&'a [u8]>, (Vec<&'a [u8]>, Vec<&'a [u8]>));

/// A table's changes or preconditions split as a commit's statement takes them: the keys
/// without a value (deletes; keys required absent), then those with one and their values, in
/// key order.
fn split(map: &BTreeMap<Vec<u8>, Option<Vec<u8>>>) -> Split<'_> {
    let bare = map
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.as_slice())
        .collect();
    let valued = map
        .iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (k.as_slice(), v)))
        .unzip();
    (bare, valued)
}
