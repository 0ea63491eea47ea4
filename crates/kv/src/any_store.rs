//! [`AnyStore`]: one type for every backend, so a program can choose its backend at run time
//! and keep the store in a field (a server's state, a `'static` handle shared between threads).
//!
//! [`BackendSpec::open`](crate::BackendSpec::open) hands the concrete store to a visitor, which
//! suits code that runs once per backend (the benchmarks); a long-lived owner wants a value it
//! can hold, and [`Store`] is not object-safe. `AnyStore` is that value: an enum with one
//! variant per backend compiled in, whose readers and writers are enums too. Each operation
//! costs one `match` on the variant, no boxing and no allocation.

use std::ops::ControlFlow;

use crate::btree::BTreeStore;
use crate::content_cache::ContentCache;
use crate::error::KvResult;
use crate::range::KeyRange;
use crate::store::{ReadTx, Store, Table, WriteTx};

/// Generic code that runs on whichever store a [`BackendSpec`](crate::BackendSpec) opens.
///
/// This is how a runtime choice of profile reaches statically dispatched code: the spec opens the
/// concrete store and calls `visit` with it, monomorphised per backend.
pub trait StoreVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the opened store. Every store a spec opens is owned (`'static`), so a visitor
    /// may hand it to code that keeps it behind a trait object (Transact's `Database`).
    fn visit<S: Store + 'static>(self, store: S) -> Self::Output;
}

/// Defines `AnyStore`, `AnyReader` and `AnyWriter` over the backends compiled in, and forwards
/// each call to the variant's own store or transaction.
macro_rules! any_store {
    ($( $(#[$cfg:meta])* $variant:ident($store:ty) ),+ $(,)?) => {
        /// An open store of whichever backend was chosen at run time; see the module docs.
        // The variants' sizes differ with the backends built in; one store is opened per job,
        // and boxing the large ones would add an indirection to every call.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum AnyStore {
            $( $(#[$cfg])* #[doc = concat!("A [`", stringify!($store), "`].")] $variant($store), )+
        }

        /// A read transaction of an [`AnyStore`].
        #[non_exhaustive]
        pub enum AnyReader<'s> {
            $( $(#[$cfg])* #[doc = concat!("A reader of a [`", stringify!($store), "`].")]
               $variant(<$store as Store>::Reader<'s>), )+
        }

        /// The write transaction of an [`AnyStore`].
        #[non_exhaustive]
        pub enum AnyWriter<'s> {
            $( $(#[$cfg])* #[doc = concat!("The writer of a [`", stringify!($store), "`].")]
               $variant(<$store as Store>::Writer<'s>), )+
        }

        impl AnyStore {
            /// Runs `visitor` on the concrete store inside, monomorphised per backend: the
            /// statically dispatched path for code that runs a whole job on one store.
            pub fn visit<V: StoreVisitor>(self, visitor: V) -> V::Output {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => visitor.visit(s), )+ }
            }
        }

        $( $(#[$cfg])* impl From<$store> for AnyStore {
            fn from(store: $store) -> Self {
                AnyStore::$variant(store)
            }
        } )+

        impl Store for AnyStore {
            type Reader<'s> = AnyReader<'s>;
            type Writer<'s> = AnyWriter<'s>;

            fn reader(&self) -> KvResult<AnyReader<'_>> {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => Ok(AnyReader::$variant(s.reader()?)), )+ }
            }

            fn writer(&self) -> KvResult<AnyWriter<'_>> {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => Ok(AnyWriter::$variant(s.writer()?)), )+ }
            }

            fn table_names(&self) -> &[String] {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => s.table_names(), )+ }
            }

            fn server_pid(&self) -> Option<u32> {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => s.server_pid(), )+ }
            }

            fn content_cache(&self) -> Option<&ContentCache> {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => s.content_cache(), )+ }
            }

            fn space(&self) -> KvResult<Option<triebench_record::space::StoreSpace>> {
                match self { $( $(#[$cfg])* AnyStore::$variant(s) => s.space(), )+ }
            }
        }

        impl ReadTx for AnyReader<'_> {
            fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
            where
                F: FnOnce(&[u8]) -> R,
            {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.get_with(table, key, f), )+ }
            }

            fn count(&self, table: Table) -> KvResult<u64> {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.count(table), )+ }
            }

            fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
            where
                F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
            {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.scan(table, range, visit), )+ }
            }

            fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
            where
                F: FnMut(usize, &[u8]),
            {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.get_many_with(table, keys, f), )+ }
            }

            fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], f: F) -> KvResult<()>
            where
                F: FnMut(usize, usize, &[u8]),
            {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.get_many_across(asks, f), )+ }
            }

            fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.contains(table, key), )+ }
            }

            fn reads_are_round_trips(&self) -> bool {
                match self { $( $(#[$cfg])* AnyReader::$variant(t) => t.reads_are_round_trips(), )+ }
            }
        }

        impl ReadTx for AnyWriter<'_> {
            fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
            where
                F: FnOnce(&[u8]) -> R,
            {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.get_with(table, key, f), )+ }
            }

            fn count(&self, table: Table) -> KvResult<u64> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.count(table), )+ }
            }

            fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
            where
                F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
            {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.scan(table, range, visit), )+ }
            }

            fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
            where
                F: FnMut(usize, &[u8]),
            {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.get_many_with(table, keys, f), )+ }
            }

            fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], f: F) -> KvResult<()>
            where
                F: FnMut(usize, usize, &[u8]),
            {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.get_many_across(asks, f), )+ }
            }

            fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.contains(table, key), )+ }
            }

            fn reads_are_round_trips(&self) -> bool {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.reads_are_round_trips(), )+ }
            }
        }

        impl WriteTx for AnyWriter<'_> {
            fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.insert(table, key, value), )+ }
            }

            fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.put(table, key, value), )+ }
            }

            fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.delete(table, key), )+ }
            }

            fn put_many<'a, I>(&mut self, table: Table, entries: I) -> KvResult<()>
            where
                I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
            {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.put_many(table, entries), )+ }
            }

            fn require_absent(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.require_absent(table, key), )+ }
            }

            fn require_value(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.require_value(table, key, value), )+ }
            }

            fn prefers_preconditions(&self) -> bool {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.prefers_preconditions(), )+ }
            }

            fn commit(self) -> KvResult<()> {
                match self { $( $(#[$cfg])* AnyWriter::$variant(t) => t.commit(), )+ }
            }
        }
    };
}

any_store! {
    Btree(BTreeStore),
    #[cfg(feature = "lmdb")]
    Lmdb(crate::lmdb::LmdbStore),
    #[cfg(feature = "sqlite-db")]
    Sqlite(crate::sqlite::SqliteStore),
    #[cfg(feature = "redis-db")]
    Redis(crate::redis::RedisStore),
    #[cfg(feature = "postgres-db")]
    Postgres(crate::postgres::PgStore),
}
