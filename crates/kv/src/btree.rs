//! The `btree` profile: tables held in memory as `BTreeMap`s. Nothing persists.
//!
//! Readers take a snapshot (an `Arc` of the committed tables), so a commit never changes what an
//! open reader sees. The writer keeps its pending changes in an ordered overlay per table, so
//! lookups, duplicate checks and ordered scans over pending writes cost O(log n), never a linear
//! scan. A commit applies the overlay in place; only if readers still hold the previous snapshot
//! are the tables copied first (copy on write).

use std::collections::BTreeMap;
use std::ops::{Bound, ControlFlow};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::{check_table, validate_tables, ReadTx, Store, Table, WriteTx};

type Map = BTreeMap<Vec<u8>, Vec<u8>>;
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
        Ok(map.get(key).map(|v| f(v)))
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        Ok(self.tables[check_table(table, self.tables.len())?].len() as u64)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let map = &self.tables[check_table(table, self.tables.len())?];
        for (k, v) in map.range::<[u8], _>(range_bounds(range)) {
            if visit(k, v).is_break() {
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
    /// Pending changes per table: `Some(value)` to put, `None` to delete.
    overlay: Vec<BTreeMap<Vec<u8>, Option<Vec<u8>>>>,
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
            overlay: vec![BTreeMap::new(); self.names.len()],
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
        match self.overlay[i].get(key) {
            Some(pending) => Ok(pending.as_deref().map(f)),
            None => Ok(self.base[i].get(key).map(|v| f(v))),
        }
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let i = self.index(table)?;
        let base = &self.base[i];
        let mut count = base.len() as i64;
        for (key, pending) in &self.overlay[i] {
            match (base.contains_key(key), pending.is_some()) {
                (false, true) => count += 1,
                (true, false) => count -= 1,
                _ => {}
            }
        }
        Ok(count as u64)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let i = self.index(table)?;
        let mut base = self.base[i]
            .range::<[u8], _>(range_bounds(range))
            .peekable();
        let mut pending = self.overlay[i]
            .range::<[u8], _>(range_bounds(range))
            .peekable();
        loop {
            // Merge two ordered streams; on equal keys the pending change wins.
            let take_pending = match (base.peek(), pending.peek()) {
                (None, None) => return Ok(()),
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((bk, _)), Some((pk, _))) => pk <= bk,
            };
            let flow = if take_pending {
                let (key, change) = pending.next().ok_or_else(poisoned)?;
                if base.peek().is_some_and(|(bk, _)| *bk == key) {
                    base.next();
                }
                match change {
                    Some(value) => visit(key, value),
                    None => ControlFlow::Continue(()),
                }
            } else {
                let (key, value) = base.next().ok_or_else(poisoned)?;
                visit(key, value)
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
        self.overlay[i].insert(key.to_vec(), Some(value.to_vec()));
        Ok(())
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let i = self.index(table)?;
        if self.base[i].contains_key(key) {
            self.overlay[i].insert(key.to_vec(), None);
        } else {
            self.overlay[i].remove(key);
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
            for (key, change) in changes {
                match change {
                    Some(value) => {
                        map.insert(key, value);
                    }
                    None => {
                        map.remove(&key);
                    }
                }
            }
        }
        Ok(())
    }
}
