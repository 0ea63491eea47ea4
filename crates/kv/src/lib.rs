//! `triebench-kv`: the storage layer under the Merkle-Radix trie.
//!
//! A [`Store`] holds named tables, declared when it is opened. It hands out any number of
//! [`ReadTx`] readers and one [`WriteTx`] writer at a time. Everything is statically dispatched:
//! the reader and writer types are associated types of the store, so code generic over
//! `S: Store` pays no boxing per operation.
//!
//! Backends (one module each) and the profiles that select them are listed in [`Profile`];
//! [`BackendSpec`] turns a profile name plus a directory into an open store for the CLI, the
//! benches and the tests alike. [`conformance`] is the suite every backend passes.

pub mod btree;
pub mod conformance;
mod error;
mod profile;
mod range;
mod spec;
mod store;

#[cfg(feature = "lmdb")]
pub mod lmdb;
#[cfg(feature = "redis-db")]
pub mod redis;
#[cfg(feature = "sqlite-db")]
pub mod sqlite;

pub use error::{KvError, KvResult};
pub use profile::{Durability, Profile};
pub use range::KeyRange;
pub use spec::{BackendSpec, StoreVisitor};
pub use store::{ReadTx, Store, Table, WriteTx};
