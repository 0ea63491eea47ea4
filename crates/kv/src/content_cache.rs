//! [`ContentCache`]: a bounded positive cache of values named by their own hash.
//!
//! # Contract
//!
//! A key of this cache names its value (the trie's node table: a node is stored under the hash
//! of its encoding), so a cached value is never stale: whatever process writes the store, the
//! value under that key, while the key exists, is the one cached. What the cache cannot know is
//! whether the key **still exists**: another process may have pruned it. So the cache is
//! positive only and answers "what is stored under this key, if it is stored", never "is it
//! stored": a caller that decides whether to write (the trie's existence checks before storing
//! a node) or whether a root exists asks the store, not the cache. A caller that deletes keys
//! (the trie's prune) evicts them, so that this process at least does not keep what it removed.
//!
//! The cache holds at most its budget in bytes of keys and values: past half of it, the current
//! generation becomes the old one and the previous old one is dropped (a two-generation
//! approximation of least-recently-used; a hit in the old generation moves the entry back).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Bytes of keys and values a cache holds by default (both generations).
pub const DEFAULT_BUDGET: usize = 256 << 20;

/// Per-entry bookkeeping charged on top of key and value bytes.
const ENTRY_OVERHEAD: usize = 64;

type Entries = HashMap<Box<[u8]>, Arc<[u8]>>;

#[derive(Debug, Default)]
struct Generations {
    young: Entries,
    old: Entries,
    young_bytes: usize,
    hits: u64,
    misses: u64,
}

/// A bounded positive cache of content-addressed values, shared by a store's readers and
/// writer (see the module's contract).
#[derive(Debug)]
pub struct ContentCache {
    inner: Mutex<Generations>,
    budget: usize,
}

fn cost(key: &[u8], value: &[u8]) -> usize {
    key.len() + value.len() + ENTRY_OVERHEAD
}

impl ContentCache {
    /// An empty cache holding at most `budget` bytes of keys and values.
    pub fn new(budget: usize) -> Self {
        ContentCache {
            inner: Mutex::new(Generations::default()),
            budget: budget.max(2 * ENTRY_OVERHEAD),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Generations> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands the cached value of `key` to `f`, `None` if it is not cached.
    pub fn get_with<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        let value = {
            let mut g = self.lock();
            let found = match g.young.get(key) {
                Some(v) => Some(v.clone()),
                None => g.old.remove_entry(key).map(|(k, v)| {
                    self.admit(&mut g, k, v.clone());
                    v
                }),
            };
            if found.is_some() {
                g.hits += 1;
            } else {
                g.misses += 1;
            }
            found
        };
        value.map(|v| f(&v))
    }

    /// Caches `value` under `key` (a value already cached under it stays: it is the same).
    pub fn insert(&self, key: &[u8], value: &[u8]) {
        let mut g = self.lock();
        if g.young.contains_key(key) {
            return;
        }
        let value: Arc<[u8]> = match g.old.remove(key) {
            Some(v) => v,
            None => Arc::from(value),
        };
        self.admit(&mut g, key.into(), value);
    }

    fn admit(&self, g: &mut Generations, key: Box<[u8]>, value: Arc<[u8]>) {
        let size = cost(&key, &value);
        if size > self.budget / 2 {
            return;
        }
        if g.young_bytes + size > self.budget / 2 {
            g.old = std::mem::take(&mut g.young);
            g.young_bytes = 0;
        }
        g.young_bytes += size;
        g.young.insert(key, value);
    }

    /// Whether `key` is cached, without counting a hit or a miss or keeping it longer: a
    /// caller that deletes a key from the store [`remove`](Self::remove)s it here, so a key
    /// cached since this process wrote it was not deleted by this process since.
    pub fn contains(&self, key: &[u8]) -> bool {
        let g = self.lock();
        g.young.contains_key(key) || g.old.contains_key(key)
    }

    /// Forgets `key` (the caller deleted it from the store).
    pub fn remove(&self, key: &[u8]) {
        let mut g = self.lock();
        if let Some(v) = g.young.remove(key) {
            g.young_bytes -= cost(key, &v);
        }
        g.old.remove(key);
    }

    /// Forgets everything.
    pub fn clear(&self) {
        let mut g = self.lock();
        g.young.clear();
        g.old.clear();
        g.young_bytes = 0;
    }

    /// Lookups answered from the cache and lookups that missed, since the cache was made.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        let g = self.lock();
        (g.hits, g.misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_inserted_and_forgets_what_was_removed() {
        let cache = ContentCache::new(1 << 20);
        assert_eq!(cache.get_with(b"k", <[u8]>::to_vec), None);
        cache.insert(b"k", b"value");
        assert_eq!(
            cache.get_with(b"k", <[u8]>::to_vec),
            Some(b"value".to_vec())
        );
        cache.remove(b"k");
        assert_eq!(cache.get_with(b"k", <[u8]>::to_vec), None);
        assert_eq!(cache.hits_and_misses(), (1, 2));
    }

    #[test]
    fn stays_within_its_budget_and_keeps_recent_entries() {
        let cache = ContentCache::new(10 * (8 + 100 + ENTRY_OVERHEAD));
        for i in 0u64..100 {
            cache.insert(&i.to_be_bytes(), &[i as u8; 100]);
        }
        let g = cache.lock();
        let held: usize = g
            .young
            .iter()
            .chain(g.old.iter())
            .map(|(k, v)| cost(k, v))
            .sum();
        assert!(held <= cache.budget, "{held} > {}", cache.budget);
        assert!(g.young.contains_key(&99u64.to_be_bytes()[..]));
        assert!(!g.young.contains_key(&0u64.to_be_bytes()[..]));
        assert!(!g.old.contains_key(&0u64.to_be_bytes()[..]));
    }
}
