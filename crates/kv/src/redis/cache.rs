//! The node cache: what this store committed or read, kept in memory so a read does not cost a
//! round trip to the server.
//!
//! # Contract
//!
//! The cache is exact only if every write to the store's namespace goes through this store, so
//! it is on only for a **managed server** (the store started it on a private socket with a
//! random password and kills it on drop: no other client knows it). With `REDIS_URL` other clients may write, and
//! the cache is off. The profile `redis-uncached` turns it off on a managed server too, so a
//! report can show what each read costs when it is a round trip.
//!
//! - A committed write updates the cache after the commit succeeded (a put stores the new
//!   value, a delete stores "absent"), while the writer still holds the store's writer lock.
//! - A commit that failed in an unknown state (connection lost) clears the cache.
//! - A read that misses asks the server and stores the answer, unless a commit landed while the
//!   request was in flight (the fill is dropped, so a late answer never overwrites a newer
//!   commit).
//! - **Complete tables**: a table that was empty when the store opened (always so for `redis`,
//!   whose managed server starts empty) has every committed key in the cache, so a miss means
//!   "absent" without asking the server. A table stops being complete the first time the cache
//!   evicts anything.
//! - The cache holds at most [`DEFAULT_BUDGET`] bytes of keys and values: past half of it, the
//!   current generation becomes the old one and the previous old one is dropped (a two-generation
//!   approximation of least-recently-used; a hit in the old generation moves the entry back).
//!
//! Nothing else is cached: counts and scans always ask the server, and every commit is still one
//! atomic round trip carrying every change.
//!
//! Values are shared (`Arc`), so a hit hands the reader the cached bytes without copying them
//! (a trie root is ~13 KB and is read at every commit), and a commit moves its keys and values
//! in from the writer instead of copying them. Keys are hashed with `foldhash`: SipHash's
//! resistance to chosen keys buys nothing in a cache of this process's own writes, and cost
//! ~50 ns per 64-byte key on every read and committed key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Bytes of keys and values the cache holds at most (both generations).
pub const DEFAULT_BUDGET: usize = 512 << 20;

/// Per-entry bookkeeping charged on top of key and value bytes.
const ENTRY_OVERHEAD: usize = 64;

/// A cached value, shared with the readers it was handed to.
pub(crate) type CachedValue = Arc<Vec<u8>>;

type Entries = HashMap<Vec<u8>, Option<CachedValue>, foldhash::fast::RandomState>;

/// What the cache knows of a key.
pub(crate) enum Cached {
    /// The committed value (`None`: absent).
    Known(Option<CachedValue>),
    /// Ask the server; pass the ticket to [`NodeCache::fill`] with the answer.
    Unknown(Ticket),
}

/// The commit epoch a read started in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket(u64);

#[derive(Debug, Default)]
struct Table {
    young: Entries,
    old: Entries,
    young_bytes: usize,
    old_bytes: usize,
    /// Every committed key of the table is in the cache.
    complete: bool,
}

impl Table {
    fn lookup(&mut self, key: &[u8]) -> Option<Option<CachedValue>> {
        if let Some(v) = self.young.get(key) {
            return Some(v.clone());
        }
        let (key, value) = self.old.remove_entry(key)?;
        let size = cost(&key, &value);
        self.old_bytes -= size;
        let copy = value.clone();
        self.young_bytes += size;
        self.young.insert(key, value);
        Some(copy)
    }

    fn store(&mut self, key: Vec<u8>, value: Option<CachedValue>, half: usize) {
        if let Some((k, v)) = self.old.remove_entry(&key) {
            self.old_bytes -= cost(&k, &v);
        }
        let size = cost(&key, &value);
        let key_len = key.len();
        if let Some(previous) = self.young.insert(key, value) {
            self.young_bytes -= key_len + value_len(&previous) + ENTRY_OVERHEAD;
        }
        self.young_bytes += size;
        if self.young_bytes > half {
            // Rotate: what was not touched since the last rotation is dropped.
            if !self.old.is_empty() {
                self.complete = false;
            }
            self.old = std::mem::take(&mut self.young);
            self.old_bytes = std::mem::take(&mut self.young_bytes);
        }
    }
}

fn value_len(value: &Option<CachedValue>) -> usize {
    value.as_ref().map_or(0, |v| v.len())
}

fn cost(key: &[u8], value: &Option<CachedValue>) -> usize {
    key.len() + value_len(value) + ENTRY_OVERHEAD
}

#[derive(Debug)]
struct Inner {
    tables: Vec<Table>,
    /// Bumped by every commit; fills started in an older epoch are dropped.
    epoch: u64,
}

/// The store's cache of committed entries, per table (see the [module docs](self)).
#[derive(Debug)]
pub(crate) struct NodeCache {
    inner: Mutex<Inner>,
    /// Per-table budget of one generation.
    half: usize,
}

impl NodeCache {
    /// A cache for `tables` tables; `complete[i]` says table `i` is known to be empty now.
    pub fn new(complete: &[bool], budget: usize) -> NodeCache {
        let tables = complete
            .iter()
            .map(|&complete| Table {
                complete,
                ..Table::default()
            })
            .collect::<Vec<_>>();
        let half = budget / 2 / tables.len().max(1);
        NodeCache {
            inner: Mutex::new(Inner { tables, epoch: 0 }),
            half,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the cache knows of `key` in `table`.
    pub fn get(&self, table: usize, key: &[u8]) -> Cached {
        let mut inner = self.lock();
        let epoch = inner.epoch;
        let t = &mut inner.tables[table];
        match t.lookup(key) {
            Some(value) => Cached::Known(value),
            None if t.complete => Cached::Known(None),
            None => Cached::Unknown(Ticket(epoch)),
        }
    }

    /// Records the server's answer to a read that started with `ticket`.
    pub fn fill(&self, table: usize, key: &[u8], value: Option<&[u8]>, ticket: Ticket) {
        let mut inner = self.lock();
        if inner.epoch != ticket.0 {
            return;
        }
        let half = self.half;
        let value = value.map(|v| Arc::new(v.to_vec()));
        inner.tables[table].store(key.to_vec(), value, half);
    }

    /// Records a commit the server applied: `changes` per table (`None` = deleted), moved in.
    pub fn committed<I>(&self, changes: I)
    where
        I: IntoIterator<Item = (usize, Vec<u8>, Option<Vec<u8>>)>,
    {
        let mut inner = self.lock();
        inner.epoch += 1;
        let half = self.half;
        for (table, key, value) in changes {
            inner.tables[table].store(key, value.map(Arc::new), half);
        }
    }

    /// Forgets everything (a commit ended in an unknown state).
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.epoch += 1;
        for t in &mut inner.tables {
            *t = Table::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(c: &NodeCache, key: &[u8]) -> Option<Option<Vec<u8>>> {
        match c.get(0, key) {
            Cached::Known(v) => Some(v.map(|v| v.to_vec())),
            Cached::Unknown(_) => None,
        }
    }

    #[test]
    fn complete_table_answers_misses_and_commits_update_it() {
        let c = NodeCache::new(&[true], 1 << 20);
        assert_eq!(known(&c, b"a"), Some(None));
        c.committed([(0, b"a".to_vec(), Some(b"1".to_vec()))]);
        assert_eq!(known(&c, b"a"), Some(Some(b"1".to_vec())));
        c.committed([(0, b"a".to_vec(), None)]);
        assert_eq!(known(&c, b"a"), Some(None));
    }

    #[test]
    fn late_fill_after_a_commit_is_dropped() {
        let c = NodeCache::new(&[false], 1 << 20);
        let Cached::Unknown(ticket) = c.get(0, b"k") else {
            panic!("an incomplete table must ask the server");
        };
        c.committed([(0, b"k".to_vec(), Some(b"new".to_vec()))]);
        c.fill(0, b"k", Some(b"old"), ticket);
        assert_eq!(known(&c, b"k"), Some(Some(b"new".to_vec())));
    }

    #[test]
    fn eviction_makes_a_table_incomplete_and_clear_forgets() {
        let c = NodeCache::new(&[true], 2 * (ENTRY_OVERHEAD + 2) * 3);
        for i in 0..20u8 {
            c.committed([(0, vec![i], Some(vec![i]))]);
        }
        assert_eq!(known(&c, &[19]), Some(Some(vec![19])));
        assert_eq!(
            known(&c, &[0]),
            None,
            "evicted, and the table is no longer complete"
        );
        c.clear();
        assert_eq!(known(&c, &[19]), None);
    }
}
