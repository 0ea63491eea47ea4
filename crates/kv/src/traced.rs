//! [`Traced`]: a read or write transaction whose calls open the storage phase spans
//! ([`STORAGE_READ`], [`STORAGE_WRITE`], [`COMMIT`]), so a phase collector sees the time spent
//! at the storage boundary of any backend, without touching the backends.
//!
//! Statically dispatched: `Traced<T>` implements [`ReadTx`]/[`WriteTx`] for whatever `T` does,
//! and each call is the inner call plus one span (a relaxed atomic load when nothing listens).

use std::ops::ControlFlow;

use crate::error::KvResult;
use crate::phase::{COMMIT, STORAGE_READ, STORAGE_WRITE};
use crate::range::KeyRange;
use crate::store::{ReadTx, Table, WriteTx};

/// A transaction whose reads, writes and commit are timed as storage phases.
#[derive(Debug)]
pub struct Traced<T>(pub T);

impl<T: ReadTx> ReadTx for Traced<T> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        crate::phase_span!(STORAGE_READ);
        self.0.get_with(table, key, f)
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        crate::phase_span!(STORAGE_READ);
        self.0.count(table)
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        crate::phase_span!(STORAGE_READ);
        self.0.get_many_with(table, keys, f)
    }

    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        crate::phase_span!(STORAGE_READ);
        self.0.contains(table, key)
    }

    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        crate::phase_span!(STORAGE_READ);
        self.0.get_many_across(asks, f)
    }

    fn reads_are_round_trips(&self) -> bool {
        self.0.reads_are_round_trips()
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        crate::phase_span!(STORAGE_READ);
        self.0.scan(table, range, visit)
    }
}

impl<T: WriteTx> WriteTx for Traced<T> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        crate::phase_span!(STORAGE_WRITE);
        self.0.insert(table, key, value)
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        crate::phase_span!(STORAGE_WRITE);
        self.0.put(table, key, value)
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        crate::phase_span!(STORAGE_WRITE);
        self.0.delete(table, key)
    }

    fn put_many<'a, I>(&mut self, table: Table, entries: I) -> KvResult<()>
    where
        I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
    {
        crate::phase_span!(STORAGE_WRITE);
        self.0.put_many(table, entries)
    }

    fn require_absent(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        crate::phase_span!(STORAGE_READ);
        self.0.require_absent(table, key)
    }

    fn require_value(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        crate::phase_span!(STORAGE_READ);
        self.0.require_value(table, key, value)
    }

    fn prefers_preconditions(&self) -> bool {
        self.0.prefers_preconditions()
    }

    fn commit(self) -> KvResult<()> {
        crate::phase_span!(COMMIT);
        self.0.commit()
    }
}
