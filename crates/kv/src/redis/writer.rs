//! The write transaction: an in-memory overlay over committed state, applied at commit in one
//! atomic round trip: a `MULTI`/`EXEC` transaction, or the commit script when inserted keys must
//! be checked first.

use std::ops::ControlFlow;
use std::sync::MutexGuard;

use redis::Value;

use super::committed::{unexpected, Shared};
use super::conn::Lease;
use super::liveness::Liveness;
use super::overlay::{Inserted, TableOverlay};
use super::scripts;
use super::transaction;
use crate::error::{KvError, KvResult};
use crate::pending_asks::Unanswered;
use crate::range::KeyRange;
use crate::store::{check_table, require_on_commit, ReadTx, Table, WriteTx};

/// The write transaction on a [`RedisStore`](super::RedisStore).
///
/// Changes are buffered in memory; reads consult them first, then the server. `insert` refuses at
/// once a key this transaction already put, while a clash with committed data is found by the
/// commit script, which then applies nothing and the commit returns
/// [`KvError::DuplicateEntry`]. Dropping the writer discards the buffer.
#[derive(Debug)]
pub struct RedisWriter<'s> {
    pub(super) shared: &'s Shared,
    pub(super) lease: Lease<'s>,
    /// The managed server, whose death cached answers must not hide.
    pub(super) liveness: Liveness<'s>,
    pub(super) overlay: Vec<TableOverlay>,
    /// Held for the writer's life: one writer per store at a time. Declared last, so it is
    /// released after the connection went back to the pool.
    pub(super) _exclusive: MutexGuard<'s, ()>,
}

impl RedisWriter<'_> {
    fn index(&self, table: Table) -> KvResult<usize> {
        check_table(table, self.overlay.len())
    }

    /// A precondition (`expected`: `None` absent, else these bytes): checked now against this
    /// writer's pending change of the key if it has one, else sent with the commit script.
    fn require(&mut self, table: Table, key: &[u8], expected: Option<&[u8]>) -> KvResult<()> {
        let i = self.index(table)?;
        let overlay = &mut self.overlay[i];
        let pending = overlay.changes.get(key).map(Option::as_deref);
        require_on_commit(table, key, expected, pending, &mut overlay.required)
    }
}

impl ReadTx for RedisWriter<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let i = self.index(table)?;
        match self.overlay[i].get(key) {
            Some(pending) => Ok(pending.map(f)),
            None => self.shared.get_with(&self.lease, &self.liveness, i, key, f),
        }
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], mut f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        let i = self.index(table)?;
        // Pending changes answer for their keys; the rest go to the cache or the server.
        let mut asked: Vec<&[u8]> = Vec::with_capacity(keys.len());
        let mut positions: Vec<usize> = Vec::with_capacity(keys.len());
        for (k, key) in keys.iter().enumerate() {
            match self.overlay[i].get(key) {
                Some(Some(v)) => f(k, v),
                Some(None) => {}
                None => {
                    asked.push(key);
                    positions.push(k);
                }
            }
        }
        self.shared
            .get_many_with(&self.lease, &self.liveness, i, &asked, |j, v| {
                f(positions[j], v)
            })
    }

    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], mut f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        // Pending changes answer for their keys; the rest go to the cache or the server.
        let rest = Unanswered::split(
            asks,
            |table| self.index(table),
            |i, key| self.overlay[i].get(key),
            &mut f,
        )?;
        self.shared
            .get_many_across(&self.lease, &self.liveness, &rest.tables(), |a, j, v| {
                f(a, rest.position(a, j), v)
            })
    }

    fn reads_are_round_trips(&self) -> bool {
        true
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let i = self.index(table)?;
        let pending = &self.overlay[i].changes;
        if pending.is_empty() {
            return self.shared.count(&self.lease, i);
        }
        let script = &self.shared.scripts.count_with_pending;
        let mut cmd = scripts::evalsha(script, &[&self.shared.keys[i].values]);
        for (key, change) in pending {
            cmd.arg(key.as_slice())
                .arg(if change.is_some() { "1" } else { "0" });
        }
        let reply = self
            .lease
            .run("count", |con| scripts::run(script, &cmd, con))?;
        match reply {
            Value::Int(n) => u64::try_from(n).map_err(|_| unexpected("count", &reply)),
            other => Err(unexpected("count", &other)),
        }
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let i = self.index(table)?;
        let mut base = self.shared.pages(&self.lease, i, range);
        let mut pending = self.overlay[i].range(range).peekable();
        loop {
            // Merge two ordered streams; on equal keys the pending change wins.
            let take_pending = match (base.peek_key()?, pending.peek()) {
                (None, None) => return Ok(()),
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(base_key), Some((pending_key, _))) => pending_key.as_slice() <= base_key,
            };
            let flow = if take_pending {
                let Some((key, change)) = pending.next() else {
                    return Ok(());
                };
                if base.peek_key()? == Some(key.as_slice()) {
                    base.next_entry()?;
                }
                match change {
                    Some(value) => visit(key, value),
                    None => ControlFlow::Continue(()),
                }
            } else {
                let Some((key, value)) = base.next_entry()? else {
                    return Ok(());
                };
                visit(&key, &value)
            };
            if flow.is_break() {
                return Ok(());
            }
        }
    }
}

impl WriteTx for RedisWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let i = self.index(table)?;
        match self.overlay[i].insert(key, value) {
            Inserted::Duplicate => Err(KvError::duplicate(&self.shared.names[i], key)),
            Inserted::Deferred | Inserted::AfterDelete => Ok(()),
        }
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let i = self.index(table)?;
        self.overlay[i].put(key, value);
        Ok(())
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let i = self.index(table)?;
        self.overlay[i].delete(key);
        Ok(())
    }

    fn require_absent(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        self.require(table, key, None)
    }

    fn require_value(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        self.require(table, key, Some(value))
    }

    /// Only without the node cache and on a server reached by URL or through the delay proxy.
    /// The cache answers a committing writer's reads without a request (`cache`), so there is
    /// nothing to save; on a managed server's local socket the requests saved cost less than
    /// running the commit script instead of a `MULTI`/`EXEC` (see `transaction`).
    fn prefers_preconditions(&self) -> bool {
        self.shared.far && self.shared.cache.is_none()
    }

    fn commit(mut self) -> KvResult<()> {
        let changed: Vec<usize> = (0..self.overlay.len())
            .filter(|&i| !self.overlay[i].is_empty())
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        let shared = self.shared;
        let checks = changed.iter().any(|&i| {
            !self.overlay[i].must_be_absent.is_empty() || !self.overlay[i].required.is_empty()
        });
        let applied = if checks {
            self.commit_by_script(&changed)
        } else {
            transaction::commit(shared, &self.lease, &self.overlay, &changed)
        };
        // With a replica, a commit counts only once the replica has it (`replica`).
        let applied = match shared.wait {
            Some(timeout) => {
                applied.and_then(|()| super::replica::wait_for_replica(&self.lease, timeout))
            }
            None => applied,
        };
        if let Some(cache) = &shared.cache {
            match &applied {
                Ok(()) => {
                    let overlay = &mut self.overlay;
                    cache.committed(changed.iter().flat_map(|&i| {
                        std::mem::take(&mut overlay[i].changes)
                            .into_iter()
                            .map(move |(k, v)| (i, k, v))
                    }))
                }
                // A clash or a failed precondition applied nothing; after anything else,
                // applied or not, nobody can tell: forget what the cache knew.
                Err(KvError::DuplicateEntry { .. } | KvError::PreconditionFailed { .. }) => {}
                Err(_) => cache.clear(),
            }
        }
        applied
    }
}

impl RedisWriter<'_> {
    /// Applies the changes of the `changed` tables with the commit script, which first checks
    /// that every key the writer inserted is absent: a clash applies nothing and is a
    /// [`KvError::DuplicateEntry`].
    fn commit_by_script(&self, changed: &[usize]) -> KvResult<()> {
        let shared = self.shared;
        let script = &shared.scripts.commit;
        let keys: Vec<&[u8]> = changed
            .iter()
            .flat_map(|&i| {
                let keys = &shared.keys[i];
                [keys.values.as_slice(), &keys.order, &keys.pending]
            })
            .collect();
        let mut cmd = scripts::evalsha(script, &keys);
        for &i in changed {
            let table = &self.overlay[i];
            let puts = table.changes.values().filter(|c| c.is_some()).count();
            let deletes = table.changes.len() - puts;
            cmd.arg(table.must_be_absent.len())
                .arg(table.required.len())
                .arg(puts)
                .arg(deletes);
            for key in &table.must_be_absent {
                cmd.arg(key.as_slice());
            }
            for (key, expected) in &table.required {
                match expected {
                    None => cmd.arg(key.as_slice()).arg("a").arg(""),
                    Some(value) => cmd.arg(key.as_slice()).arg("v").arg(value.as_slice()),
                };
            }
            for (key, change) in &table.changes {
                if let Some(value) = change {
                    cmd.arg(key.as_slice()).arg(value.as_slice());
                }
            }
            for (key, change) in &table.changes {
                if change.is_none() {
                    cmd.arg(key.as_slice());
                }
            }
        }
        let reply = self
            .lease
            .run("commit", |con| scripts::run(script, &cmd, con))?;
        match reply {
            Value::Array(items) if items.is_empty() => Ok(()),
            Value::Array(items) => match items.as_slice() {
                [Value::BulkString(j), Value::BulkString(key), found @ ..] => {
                    let table = std::str::from_utf8(j)
                        .ok()
                        .and_then(|j| j.parse::<usize>().ok())
                        .and_then(|j| changed.get(j.checked_sub(1)?));
                    match (table, found) {
                        (Some(&i), []) => Err(KvError::duplicate(&shared.names[i], key)),
                        (Some(&i), [Value::BulkString(found)]) => Err(KvError::precondition(
                            Table(i as u16),
                            key,
                            match found.as_slice() {
                                b"present" => "is present",
                                b"absent" => "is absent",
                                _ => "holds other bytes",
                            },
                        )),
                        _ => Err(unexpected("commit", &Value::Array(items))),
                    }
                }
                _ => Err(unexpected("commit", &Value::Array(items))),
            },
            other => Err(unexpected("commit", &other)),
        }
    }
}
