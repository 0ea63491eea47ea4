//! [`RecordingStore`]: a store that passes every call through to another and records the
//! writes of each committed transaction, so the floor can replay exactly what the trie wrote.
//!
//! Reads pass through unrecorded. A writer dropped without committing records nothing, as
//! nothing of it was written.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use triebench_kv::{ContentCache, KeyRange, KvResult, ReadTx, Store, Table, WriteTx};

use super::entries::Entries;

/// One recorded write call, under the index of its table in the store's table list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// A `put` (an `insert` is recorded as a put: on replay the key's final value is the same).
    Put {
        /// The table's index in [`Store::table_names`].
        table: usize,
        /// The key.
        key: Vec<u8>,
        /// The value.
        value: Vec<u8>,
    },
    /// A `put_many`: its entries in the order given.
    PutMany {
        /// The table's index in [`Store::table_names`].
        table: usize,
        /// The `(key, value)` entries.
        entries: Entries,
    },
    /// A `delete`.
    Delete {
        /// The table's index in [`Store::table_names`].
        table: usize,
        /// The key.
        key: Vec<u8>,
    },
}

impl Write {
    /// How many entries this call writes or deletes (a `put_many` counts each entry).
    pub fn entries(&self) -> usize {
        match self {
            Write::PutMany { entries, .. } => entries.len(),
            Write::Put { .. } | Write::Delete { .. } => 1,
        }
    }

    /// Bytes of keys and values this call sends to the store.
    pub fn bytes(&self) -> usize {
        match self {
            Write::Put { key, value, .. } => key.len() + value.len(),
            Write::PutMany { entries, .. } => entries.bytes(),
            Write::Delete { key, .. } => key.len(),
        }
    }
}

/// A store whose committed write transactions are recorded, in commit order.
#[derive(Debug)]
pub struct RecordingStore<S> {
    inner: S,
    committed: Mutex<Vec<Vec<Write>>>,
    /// Whether writers opened now record (see [`RecordingStore::set_recording`]).
    recording: AtomicBool,
}

impl<S: Store> RecordingStore<S> {
    /// Records the writes made through it on `inner`.
    pub fn new(inner: S) -> Self {
        RecordingStore {
            inner,
            committed: Mutex::new(Vec::new()),
            recording: AtomicBool::new(true),
        }
    }

    /// Whether writers opened from now on record their writes (on from [`new`](Self::new)).
    /// A writer opened while off passes every call straight through and copies nothing: what
    /// the growth curve times between its recorded fill commits.
    pub fn set_recording(&self, on: bool) {
        self.recording.store(on, Ordering::Relaxed);
    }

    /// The writes of every transaction committed since the last call, one list per commit, in
    /// order (the record is emptied).
    pub fn take(&self) -> Vec<Vec<Write>> {
        std::mem::take(
            &mut *self
                .committed
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// How many write transactions have committed so far.
    pub fn committed(&self) -> usize {
        self.committed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The writes of every transaction committed so far, one list per commit, in order.
    pub fn into_transactions(self) -> Vec<Vec<Write>> {
        self.committed
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<S: Store> Store for RecordingStore<S> {
    type Reader<'s>
        = S::Reader<'s>
    where
        Self: 's;
    type Writer<'s>
        = RecordingWriter<'s, S::Writer<'s>>
    where
        Self: 's;

    fn reader(&self) -> KvResult<Self::Reader<'_>> {
        self.inner.reader()
    }

    fn writer(&self) -> KvResult<Self::Writer<'_>> {
        Ok(RecordingWriter {
            inner: self.inner.writer()?,
            writes: Vec::new(),
            record: self.recording.load(Ordering::Relaxed),
            committed: &self.committed,
        })
    }

    fn table_names(&self) -> &[String] {
        self.inner.table_names()
    }

    fn server_pid(&self) -> Option<u32> {
        self.inner.server_pid()
    }

    fn content_cache(&self) -> Option<&ContentCache> {
        self.inner.content_cache()
    }

    fn table(&self, name: &str) -> KvResult<Table> {
        self.inner.table(name)
    }

    fn space(&self) -> KvResult<Option<triebench_record::space::StoreSpace>> {
        self.inner.space()
    }
}

/// The write transaction of a [`RecordingStore`]: the inner writer, and the writes made on it
/// so far, appended to the store's record when it commits.
#[derive(Debug)]
pub struct RecordingWriter<'s, W> {
    inner: W,
    writes: Vec<Write>,
    /// Whether this writer records (its store's setting when it was opened).
    record: bool,
    committed: &'s Mutex<Vec<Vec<Write>>>,
}

impl<W: ReadTx> ReadTx for RecordingWriter<'_, W> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        self.inner.get_with(table, key, f)
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        self.inner.count(table)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        self.inner.scan(table, range, visit)
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        self.inner.get_many_with(table, keys, f)
    }

    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        self.inner.get_many_across(asks, f)
    }

    fn reads_are_round_trips(&self) -> bool {
        self.inner.reads_are_round_trips()
    }

    fn get(&self, table: Table, key: &[u8]) -> KvResult<Option<Vec<u8>>> {
        self.inner.get(table, key)
    }

    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        self.inner.contains(table, key)
    }

    fn collect(&self, table: Table, range: &KeyRange) -> KvResult<Vec<(Vec<u8>, Vec<u8>)>> {
        self.inner.collect(table, range)
    }
}

impl<W: WriteTx> WriteTx for RecordingWriter<'_, W> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        self.inner.insert(table, key, value)?;
        if !self.record {
            return Ok(());
        }
        self.writes.push(Write::Put {
            table: table.index(),
            key: key.to_vec(),
            value: value.to_vec(),
        });
        Ok(())
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        self.inner.put(table, key, value)?;
        if !self.record {
            return Ok(());
        }
        self.writes.push(Write::Put {
            table: table.index(),
            key: key.to_vec(),
            value: value.to_vec(),
        });
        Ok(())
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        self.inner.delete(table, key)?;
        if !self.record {
            return Ok(());
        }
        self.writes.push(Write::Delete {
            table: table.index(),
            key: key.to_vec(),
        });
        Ok(())
    }

    fn put_many<'a, I>(&mut self, table: Table, entries: I) -> KvResult<()>
    where
        I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
    {
        if !self.record {
            return self.inner.put_many(table, entries);
        }
        // Copied once into one buffer, then handed on from it.
        let entries: Entries = entries.into_iter().collect();
        self.inner.put_many(table, entries.iter())?;
        self.writes.push(Write::PutMany {
            table: table.index(),
            entries,
        });
        Ok(())
    }

    fn require_absent(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        self.inner.require_absent(table, key)
    }

    fn require_value(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        self.inner.require_value(table, key, value)
    }

    fn prefers_preconditions(&self) -> bool {
        self.inner.prefers_preconditions()
    }

    fn commit(self) -> KvResult<()> {
        self.inner.commit()?;
        if !self.record {
            return Ok(());
        }
        self.committed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(self.writes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_kv::btree::BTreeStore;

    #[test]
    fn committed_writes_are_recorded_in_order_and_a_dropped_writer_is_not() {
        let store = RecordingStore::new(BTreeStore::open(&["a", "b"]).expect("store"));
        let (a, b) = (store.table("a").expect("a"), store.table("b").expect("b"));
        let mut w = store.writer().expect("writer");
        w.insert(a, b"k1", b"v1").expect("insert");
        w.put_many(b, [(&b"k2"[..], &b"v2"[..]), (b"k3", b"v3")])
            .expect("put_many");
        w.delete(a, b"k1").expect("delete");
        w.put(b, b"k4", b"v4").expect("put");
        w.commit().expect("commit");
        let mut w = store.writer().expect("writer");
        w.put(a, b"lost", b"x").expect("put");
        drop(w);
        let r = store.reader().expect("reader");
        assert_eq!(r.get(b, b"k3").expect("get"), Some(b"v3".to_vec()));
        assert_eq!(r.get(a, b"k1").expect("get"), None, "passed through");
        drop(r);
        let recorded = store.into_transactions();
        let put = |table: usize, k: &[u8], v: &[u8]| Write::Put {
            table,
            key: k.to_vec(),
            value: v.to_vec(),
        };
        assert_eq!(
            recorded,
            vec![vec![
                put(0, b"k1", b"v1"),
                Write::PutMany {
                    table: 1,
                    entries: [(b"k2", b"v2"), (b"k3", b"v3")].into_iter().collect(),
                },
                Write::Delete {
                    table: 0,
                    key: b"k1".to_vec()
                },
                put(1, b"k4", b"v4"),
            ]]
        );
    }
}
