//! Reads of committed state over a leased connection: lookups, counts and paged ordered scans,
//! shared by readers and the writer.

use std::collections::VecDeque;

use redis::Value;

use super::cache::{Cached, NodeCache};
use super::conn::{Lease, Pool};
use super::liveness::Liveness;
use super::namespace::TableKeys;
use super::scripts::{self, Scripts};
use crate::error::{KvError, KvResult};
use crate::range::KeyRange;

/// Keys fetched per scan page at most.
const PAGE_KEYS: usize = 1000;
/// Bytes (keys + values) per scan page, beyond which a page ends early (at least one entry).
const PAGE_BYTES: usize = 4 << 20;

/// What readers and the writer share: table names and keys, connections, scripts.
#[derive(Debug)]
pub(crate) struct Shared {
    pub names: Vec<String>,
    pub keys: Vec<TableKeys>,
    pub pool: Pool,
    pub scripts: Scripts,
    /// What this store committed or read (`None`: every read asks the server); see
    /// [`cache`](super::cache) for when it is on and why it is exact.
    pub cache: Option<NodeCache>,
    /// With a replica (`redis-replica-wait`): how long `WAIT 1` after each commit may wait for
    /// the replica's acknowledgement; a commit it does not acknowledge is an error.
    pub wait: Option<std::time::Duration>,
    /// The server is reached by URL or through the delay proxy, not on a managed server's
    /// local socket: a request costs more than the commit script's work (see
    /// `RedisWriter::prefers_preconditions`).
    pub far: bool,
}

impl Shared {
    /// `f` of the committed value of `key` in table `table` (`None`: absent).
    ///
    /// An answer from the cache still fails, as a round trip would, once the managed server has
    /// exited ([`Liveness`]).
    pub fn get_with<R>(
        &self,
        lease: &Lease<'_>,
        liveness: &Liveness<'_>,
        table: usize,
        key: &[u8],
        f: impl FnOnce(&[u8]) -> R,
    ) -> KvResult<Option<R>> {
        let ticket = match &self.cache {
            None => None,
            Some(cache) => match cache.get(table, key) {
                Cached::Known(value) => {
                    liveness.check()?;
                    return Ok(value.map(|v| f(&v)));
                }
                Cached::Unknown(ticket) => Some(ticket),
            },
        };
        let value: Option<Vec<u8>> = lease.run("HGET", |con| {
            redis::cmd("HGET")
                .arg(&self.keys[table].values)
                .arg(key)
                .query(con)
        })?;
        if let (Some(cache), Some(ticket)) = (&self.cache, ticket) {
            cache.fill(table, key, value.as_deref(), ticket);
        }
        Ok(value.map(|v| f(&v)))
    }

    /// `f(i, value)` for each key of `keys` committed in `table`: the cache answers what it
    /// knows, the rest in one `HMGET` round trip.
    pub fn get_many_with(
        &self,
        lease: &Lease<'_>,
        liveness: &Liveness<'_>,
        table: usize,
        keys: &[&[u8]],
        mut f: impl FnMut(usize, &[u8]),
    ) -> KvResult<()> {
        let mut asked: Vec<(usize, Option<super::cache::Ticket>)> = Vec::with_capacity(keys.len());
        let mut answered = false;
        for (i, key) in keys.iter().enumerate() {
            match self.cache.as_ref().map(|c| c.get(table, key)) {
                Some(Cached::Known(value)) => {
                    answered = true;
                    if let Some(v) = value {
                        f(i, &v);
                    }
                }
                Some(Cached::Unknown(ticket)) => asked.push((i, Some(ticket))),
                None => asked.push((i, None)),
            }
        }
        if answered {
            liveness.check()?;
        }
        if asked.is_empty() {
            return Ok(());
        }
        let values: Vec<Option<Vec<u8>>> = lease.run("HMGET", |con| {
            let mut cmd = redis::cmd("HMGET");
            cmd.arg(&self.keys[table].values);
            for &(i, _) in &asked {
                cmd.arg(keys[i]);
            }
            cmd.query(con)
        })?;
        for (&(i, ticket), value) in asked.iter().zip(values) {
            if let (Some(cache), Some(ticket)) = (&self.cache, ticket) {
                cache.fill(table, keys[i], value.as_deref(), ticket);
            }
            if let Some(v) = value {
                f(i, &v);
            }
        }
        Ok(())
    }

    /// `f(ask, i, value)` for each key of each ask `(table, keys)` committed: the cache answers
    /// what it knows, the rest in one pipeline of `HMGET`s (one per table asked), one round
    /// trip.
    pub fn get_many_across(
        &self,
        lease: &Lease<'_>,
        liveness: &Liveness<'_>,
        asks: &[(usize, &[&[u8]])],
        mut f: impl FnMut(usize, usize, &[u8]),
    ) -> KvResult<()> {
        // Per ask: the keys left for the server, with their index and cache ticket.
        type Asked = Vec<(usize, Option<super::cache::Ticket>)>;
        let mut asked: Vec<Asked> = Vec::with_capacity(asks.len());
        let mut answered = false;
        for (a, &(table, keys)) in asks.iter().enumerate() {
            let mut left: Asked = Vec::with_capacity(keys.len());
            for (i, key) in keys.iter().enumerate() {
                match self.cache.as_ref().map(|c| c.get(table, key)) {
                    Some(Cached::Known(value)) => {
                        answered = true;
                        if let Some(v) = value {
                            f(a, i, &v);
                        }
                    }
                    Some(Cached::Unknown(ticket)) => left.push((i, Some(ticket))),
                    None => left.push((i, None)),
                }
            }
            asked.push(left);
        }
        if answered {
            liveness.check()?;
        }
        if asked.iter().all(Vec::is_empty) {
            return Ok(());
        }
        let values: Vec<Vec<Option<Vec<u8>>>> = lease.run("HMGET", |con| {
            let mut pipe = redis::pipe();
            for (left, &(table, keys)) in asked.iter().zip(asks) {
                if left.is_empty() {
                    continue;
                }
                let cmd = pipe.cmd("HMGET").arg(&self.keys[table].values);
                for &(i, _) in left {
                    cmd.arg(keys[i]);
                }
            }
            pipe.query(con)
        })?;
        let mut replies = values.into_iter();
        for (a, (left, &(table, keys))) in asked.iter().zip(asks).enumerate() {
            if left.is_empty() {
                continue;
            }
            let Some(reply) = replies.next() else {
                return Err(KvError::backend(
                    "redis",
                    "HMGET pipeline: a reply is missing",
                ));
            };
            for (&(i, ticket), value) in left.iter().zip(reply) {
                if let (Some(cache), Some(ticket)) = (&self.cache, ticket) {
                    cache.fill(table, keys[i], value.as_deref(), ticket);
                }
                if let Some(v) = value {
                    f(a, i, &v);
                }
            }
        }
        Ok(())
    }

    /// The committed number of entries of `table`.
    pub fn count(&self, lease: &Lease<'_>, table: usize) -> KvResult<u64> {
        lease.run("HLEN", |con| {
            redis::cmd("HLEN").arg(&self.keys[table].values).query(con)
        })
    }

    /// The committed entries of `range`, fetched a page at a time.
    pub fn pages<'a>(&'a self, lease: &'a Lease<'a>, table: usize, range: &KeyRange) -> Pages<'a> {
        let empty = range
            .end
            .as_deref()
            .is_some_and(|end| end <= range.start.as_slice());
        let min = if range.start.is_empty() {
            b"-".to_vec()
        } else {
            bound(b'[', &range.start)
        };
        let max = match &range.end {
            Some(end) => bound(b'(', end),
            None => b"+".to_vec(),
        };
        Pages {
            shared: self,
            lease,
            table,
            next_min: (!empty).then_some(min),
            max,
            buffered: VecDeque::new(),
        }
    }
}

/// A `ZRANGEBYLEX` bound: `[key` (inclusive) or `(key` (exclusive).
fn bound(kind: u8, key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + 1);
    out.push(kind);
    out.extend_from_slice(key);
    out
}

/// A stream of committed entries in key order. Each page is one atomic script call, so a page is
/// a consistent cut; consecutive pages may straddle a commit (read-committed).
pub(crate) struct Pages<'a> {
    shared: &'a Shared,
    lease: &'a Lease<'a>,
    table: usize,
    /// Lower bound of the next page, `None` once the range is exhausted.
    next_min: Option<Vec<u8>>,
    max: Vec<u8>,
    buffered: VecDeque<(Vec<u8>, Vec<u8>)>,
}

impl Pages<'_> {
    /// The next entry's key, fetching a page if needed.
    pub fn peek_key(&mut self) -> KvResult<Option<&[u8]>> {
        self.fill()?;
        Ok(self.buffered.front().map(|(k, _)| k.as_slice()))
    }

    /// The next entry, fetching a page if needed.
    pub fn next_entry(&mut self) -> KvResult<Option<(Vec<u8>, Vec<u8>)>> {
        self.fill()?;
        Ok(self.buffered.pop_front())
    }

    fn fill(&mut self) -> KvResult<()> {
        while self.buffered.is_empty() {
            let Some(min) = self.next_min.take() else {
                return Ok(());
            };
            let keys = &self.shared.keys[self.table];
            let script = &self.shared.scripts.scan_page;
            let mut cmd = scripts::evalsha(script, &[&keys.order, &keys.values, &keys.pending]);
            cmd.arg(min)
                .arg(self.max.as_slice())
                .arg(PAGE_KEYS)
                .arg(PAGE_BYTES);
            let reply = self
                .lease
                .run("scan", |con| scripts::run(script, &cmd, con))?;
            let mut items = match reply {
                Value::Array(items) if items.len() >= 2 && items.len() % 2 == 0 => items,
                other => return Err(unexpected("scan", &other)),
            }
            .into_iter()
            .map(|item| match item {
                Value::BulkString(bytes) => Ok(bytes),
                other => Err(unexpected("scan", &other)),
            });
            let done = items.next().transpose()?.unwrap_or_default();
            let last = items.next().transpose()?.unwrap_or_default();
            while let Some(key) = items.next().transpose()? {
                let value = items.next().transpose()?.unwrap_or_default();
                self.buffered.push_back((key, value));
            }
            if done != b"1" && !last.is_empty() {
                self.next_min = Some(bound(b'(', &last));
            }
        }
        Ok(())
    }
}

/// An error for a script reply of the wrong shape.
pub(crate) fn unexpected(action: &str, reply: &Value) -> KvError {
    KvError::backend(
        "redis",
        format!("{action}: unexpected reply from the server: {reply:?}"),
    )
}
