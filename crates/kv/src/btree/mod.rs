//! The `btree` profile: tables held in memory as B-trees (std's `BTreeSet` of key-value
//! entries). Nothing persists.
//!
//! Readers take a snapshot (an `Arc` of the committed tables), so a commit never changes what an
//! open reader sees. The writer keeps its pending changes in an ordered overlay per table, so
//! lookups, duplicate checks and ordered scans over pending writes cost O(log n), never a linear
//! scan. A commit applies the overlay in place (a large overlay is merged in one ordered pass
//! instead of key by key); only if readers still hold the previous snapshot are the tables
//! copied first (copy on write).
//!
//! Each key is stored with its value in one allocation (`Entry`, in its own module), compared
//! by its first 8 bytes as one big-endian integer before the rest (the same order as comparing
//! the bytes): the trie's keys are 64-byte hashes, which almost always differ there, so inserts
//! rarely call `memcmp`. Point lookups go by `Probe`, which compares the same way; a lookup by
//! `&[u8]` would compare whole slices and so read the heap bytes of every entry it passed.

mod entry;

use std::collections::BTreeSet;
use std::ops::{Bound, ControlFlow};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::{check_table, validate_tables, ReadTx, Store, Table, WriteTx};
use entry::{Entry, Probe};

/// A table: its entries, ordered by key.
type Map = BTreeSet<Entry>;
type Tables = Vec<Map>;

/// An in-memory store (profile `btree`).
#[derive(Debug)]
pub struct BTreeStore {
    names: Vec<String>,
    committed: RwLock<Arc<Tables>>,
    writer_lock: Mutex<()>,
}

impl BTreeStore {
    /// Opens an empty in-memory store with the given tables.
    pub fn open(tables: &[&str]) -> KvResult<Self> {
        let names = validate_tables(tables)?;
        let empty = vec![Map::new(); names.len()];
        Ok(BTreeStore {
            names,
            committed: RwLock::new(Arc::new(empty)),
            writer_lock: Mutex::new(()),
        })
    }

    fn snapshot(&self) -> KvResult<Arc<Tables>> {
        self.committed
            .read()
            .map(|tables| Arc::clone(&tables))
            .map_err(|_| poisoned())
    }
}

fn poisoned() -> KvError {
    KvError::backend("btree", "a thread panicked while holding the store lock")
}

fn range_bounds(range: &KeyRange) -> (Bound<&[u8]>, Bound<&[u8]>) {
    let end = match &range.end {
        Some(end) => Bound::Excluded(end.as_slice()),
        None => Bound::Unbounded,
    };
    (Bound::Included(range.start.as_slice()), end)
}

/// A read transaction on a [`BTreeStore`]: a consistent snapshot.
#[derive(Debug)]
pub struct BTreeReader {
    tables: Arc<Tables>,
}

impl ReadTx for BTreeReader {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let map = &self.tables[check_table(table, self.tables.len())?];
        Ok(map.get(Probe::new(key).key()).map(|e| f(e.value())))
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        Ok(self.tables[check_table(table, self.tables.len())?].len() as u64)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let map = &self.tables[check_table(table, self.tables.len())?];
        for e in map.range::<[u8], _>(range_bounds(range)) {
            if visit(e.key(), e.value()).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// The write transaction on a [`BTreeStore`]: committed tables plus an ordered overlay.
#[derive(Debug)]
pub struct BTreeWriter<'s> {
    store: &'s BTreeStore,
    _exclusive: MutexGuard<'s, ()>,
    base: Arc<Tables>,
    /// Pending changes per table.
    overlay: Vec<Pending>,
}

/// One table's pending changes: puts, and deletes of committed keys. A key is in at most one
/// of the two, and only keys of the snapshot are in `deletes`. Keeping the puts in a map of
/// their own lets a large commit merge them into the table as they are.
#[derive(Debug, Default, Clone)]
struct Pending {
    puts: Map,
    /// Value-less entries.
    deletes: BTreeSet<Entry>,
}

impl Pending {
    /// Puts `entry`, replacing a pending put of its key and cancelling a pending delete.
    fn put(&mut self, entry: Entry) {
        if !self.deletes.is_empty() {
            self.deletes.remove(&entry);
        }
        self.puts.replace(entry);
    }
}

impl Store for BTreeStore {
    type Reader<'s> = BTreeReader;
    type Writer<'s> = BTreeWriter<'s>;

    fn reader(&self) -> KvResult<BTreeReader> {
        Ok(BTreeReader {
            tables: self.snapshot()?,
        })
    }

    fn writer(&self) -> KvResult<BTreeWriter<'_>> {
        let exclusive = self.writer_lock.lock().map_err(|_| poisoned())?;
        Ok(BTreeWriter {
            store: self,
            _exclusive: exclusive,
            base: self.snapshot()?,
            overlay: vec![Pending::default(); self.names.len()],
        })
    }

    fn table_names(&self) -> &[String] {
        &self.names
    }
}

impl BTreeWriter<'_> {
    fn index(&self, table: Table) -> KvResult<usize> {
        check_table(table, self.overlay.len())
    }
}

impl ReadTx for BTreeWriter<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let i = self.index(table)?;
        let pending = &self.overlay[i];
        let probe = Probe::new(key);
        if !pending.puts.is_empty() {
            if let Some(e) = pending.puts.get(probe.key()) {
                return Ok(Some(f(e.value())));
            }
        }
        if !pending.deletes.is_empty() && pending.deletes.contains(probe.key()) {
            return Ok(None);
        }
        Ok(self.base[i].get(probe.key()).map(|e| f(e.value())))
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let i = self.index(table)?;
        let base = &self.base[i];
        let pending = &self.overlay[i];
        // Deleted keys are all in the snapshot; new keys are the puts not in it.
        let added = pending.puts.iter().filter(|e| !base.contains(*e)).count();
        Ok((base.len() + added).saturating_sub(pending.deletes.len()) as u64)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let i = self.index(table)?;
        let mut base = self.base[i]
            .range::<[u8], _>(range_bounds(range))
            .peekable();
        let deletes = &self.overlay[i].deletes;
        let mut pending = self.overlay[i]
            .puts
            .range::<[u8], _>(range_bounds(range))
            .peekable();
        loop {
            // Merge two ordered streams; on equal keys the pending change wins.
            let take_pending = match (base.peek(), pending.peek()) {
                (None, None) => return Ok(()),
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(b), Some(p)) => p <= b,
            };
            let flow = if take_pending {
                let e = pending.next().ok_or_else(poisoned)?;
                if base.peek().is_some_and(|b| *b == e) {
                    base.next();
                }
                visit(e.key(), e.value())
            } else {
                let e = base.next().ok_or_else(poisoned)?;
                if !deletes.is_empty() && deletes.contains(e) {
                    ControlFlow::Continue(())
                } else {
                    visit(e.key(), e.value())
                }
            };
            if flow.is_break() {
                return Ok(());
            }
        }
    }
}

impl WriteTx for BTreeWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        if self.contains(table, key)? {
            return Err(KvError::duplicate(&self.store.names[table.index()], key));
        }
        self.put(table, key, value)
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let i = self.index(table)?;
        self.overlay[i].put(Entry::new(key, value));
        Ok(())
    }

    /// A batch in strictly ascending key order is built into a map in one pass and merged
    /// into the overlay (moved in whole when the overlay is empty); any other batch goes key
    /// by key.
    fn put_many<'a, I>(&mut self, table: Table, entries: I) -> KvResult<()>
    where
        I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
    {
        let i = self.index(table)?;
        let entries = entries.into_iter();
        let pending = &mut self.overlay[i];
        // A small batch, or one small beside the overlay, is cheaper key by key.
        let expected = entries.size_hint().0;
        if expected < 16 || expected < pending.puts.len() / 4 {
            for (key, value) in entries {
                pending.put(Entry::new(key, value));
            }
            return Ok(());
        }
        let batch: Vec<Entry> = entries.map(|(key, value)| Entry::new(key, value)).collect();
        if !pending.deletes.is_empty() {
            for e in &batch {
                pending.deletes.remove(e);
            }
        }
        if !batch.windows(2).all(|pair| pair[0] < pair[1]) {
            for e in batch {
                pending.puts.replace(e);
            }
            return Ok(());
        }
        // Sorted and without duplicates: collecting builds the map bottom-up, no searches.
        let mut batch: Map = batch.into_iter().collect();
        // On equal keys a set's `append` keeps the receiver's element (the entry, value and
        // all), so the batch receives the overlay: the later put wins.
        batch.append(&mut pending.puts);
        pending.puts = batch;
        Ok(())
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let i = self.index(table)?;
        let pending = &mut self.overlay[i];
        let probe = Probe::new(key);
        pending.puts.remove(probe.key());
        if self.base[i].contains(probe.key()) {
            pending.deletes.insert(Entry::key_only(key));
        }
        Ok(())
    }

    fn commit(self) -> KvResult<()> {
        let BTreeWriter {
            store,
            _exclusive,
            base,
            overlay,
        } = self;
        // Release our handle on the snapshot so `make_mut` copies only if a reader holds it.
        drop(base);
        let mut committed = store.committed.write().map_err(|_| poisoned())?;
        let tables = Arc::make_mut(&mut committed);
        for (map, changes) in tables.iter_mut().zip(overlay) {
            apply(map, changes);
        }
        Ok(())
    }
}

/// Applies one table's pending changes to its committed map. Key by key costs a search per
/// change; merging the puts in one ordered pass (`append`) costs a pass over both, which is
/// cheaper once they are a sizeable fraction of the map (a bulk load). When the map is the far
/// smaller side (a bulk load into a near-empty table), its entries go into the puts instead.
fn apply(map: &mut Map, pending: Pending) {
    let Pending { mut puts, deletes } = pending;
    for key in &deletes {
        map.remove(key);
    }
    if puts.len() < 16 || puts.len() < map.len() / 4 {
        for e in puts {
            map.replace(e);
        }
    } else if map.len() <= puts.len() / 16 {
        absorb_small_table(map, puts);
    } else {
        // On equal keys a set's `append` keeps the receiver's element, so the pending puts
        // receive the committed entries: the pending change wins.
        puts.append(map);
        std::mem::swap(map, &mut puts);
    }
}

/// Makes `puts` the table, with the few entries `map` held beside them: each is inserted, which
/// for a table a sixteenth the size of the puts costs less than merging both into a new tree.
/// Kept out of line: single-key commits never come here, and their loop should not be laid out
/// around it.
#[cold]
#[inline(never)]
fn absorb_small_table(map: &mut Map, mut puts: Map) {
    // A set's `insert` keeps the element it holds on equal keys: the pending put wins.
    for e in std::mem::take(map) {
        puts.insert(e);
    }
    *map = puts;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// A large commit onto a smaller table, whether the table's entries are inserted into the
    /// puts (2 beside 40) or both are merged (12 beside 40): the new value of a key in both
    /// wins, and the table's other entries stay.
    #[test]
    fn large_commit_onto_small_table_keeps_the_new_values() {
        for kept in [1, 11] {
            let store = BTreeStore::open(&["t"]).unwrap();
            let t = store.table("t").unwrap();
            let mut w = store.writer().unwrap();
            w.put(t, b"k05", b"old").unwrap();
            for i in 0..kept {
                w.put(t, format!("z{i:02}").as_bytes(), b"kept").unwrap();
            }
            w.commit().unwrap();
            let keys: Vec<Vec<u8>> = (0..40).map(|i| format!("k{i:02}").into_bytes()).collect();
            let mut w = store.writer().unwrap();
            w.put_many(t, keys.iter().map(|k| (&k[..], &b"new"[..])))
                .unwrap();
            w.commit().unwrap();
            let r = store.reader().unwrap();
            assert_eq!(r.get(t, b"k05").unwrap(), Some(b"new".to_vec()));
            for i in 0..kept {
                let key = format!("z{i:02}");
                assert_eq!(r.get(t, key.as_bytes()).unwrap(), Some(b"kept".to_vec()));
            }
            assert_eq!(r.count(t).unwrap(), 40 + kept as u64);
        }
    }

    proptest! {
        /// `put_many` (sorted or not, duplicates or not, small or large, onto an empty or a
        /// filled overlay) is `put` one by one.
        #[test]
        fn put_many_is_put_key_by_key(
            before in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..6), 0..100),
            batch in proptest::collection::vec(
                (proptest::collection::vec(0u8..4, 0..6), 0u8..9),
                0..200,
            ),
            sort in proptest::prelude::any::<bool>(),
        ) {
            let mut batch = batch;
            if sort {
                batch.sort();
                batch.dedup_by(|a, b| a.0 == b.0);
            }
            let store = BTreeStore::open(&["t"]).unwrap();
            let t = store.table("t").unwrap();
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            let mut w = store.writer().unwrap();
            for key in before {
                w.put(t, &key, b"old").unwrap();
                model.insert(key, b"old".to_vec());
            }
            w.put_many(t, batch.iter().map(|(k, v)| (k.as_slice(), std::slice::from_ref(v))))
                .unwrap();
            for (k, v) in &batch {
                model.insert(k.clone(), vec![*v]);
            }
            let want: Vec<_> = model.into_iter().collect();
            prop_assert_eq!(w.collect(t, &KeyRange::all()).unwrap(), want.clone());
            w.commit().unwrap();
            let got = store.reader().unwrap().collect(t, &KeyRange::all()).unwrap();
            prop_assert_eq!(got, want);
        }

        /// Commits of small and large overlays (key by key, or merged) give the model's map,
        /// deletes and overwrites of committed keys included.
        #[test]
        fn commits_match_a_model(
            batches in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::collection::vec(0u8..3, 0..10), proptest::option::of(0u8..9)),
                    0..80,
                ),
                1..5,
            ),
        ) {
            let store = BTreeStore::open(&["t"]).unwrap();
            let t = store.table("t").unwrap();
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            for batch in batches {
                let mut w = store.writer().unwrap();
                for (key, change) in batch {
                    match change {
                        Some(v) => {
                            w.put(t, &key, &[v]).unwrap();
                            model.insert(key, vec![v]);
                        }
                        None => {
                            w.delete(t, &key).unwrap();
                            model.remove(&key);
                        }
                    }
                }
                // The writer sees its own changes: scan, count and lookups agree with the model.
                let want: Vec<_> = model.clone().into_iter().collect();
                prop_assert_eq!(w.collect(t, &KeyRange::all()).unwrap(), want.clone());
                prop_assert_eq!(w.count(t).unwrap(), want.len() as u64);
                for key in [&[][..], &[0], &[1, 2], &[2, 2, 2]] {
                    prop_assert_eq!(w.get(t, key).unwrap(), model.get(key).cloned());
                }
                w.commit().unwrap();
                let got = store.reader().unwrap().collect(t, &KeyRange::all()).unwrap();
                prop_assert_eq!(got, want);
            }
        }
    }
}
