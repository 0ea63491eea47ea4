//! `triebench-kv`: the storage layer under the Merkle-Radix trie.
//!
//! Modules, in the order a request travels from the caller down to the disk:
//!
//! - `spec`: a profile name plus a directory, opened into a concrete store ([`BackendSpec`]), so
//!   the CLI, the benches and the tests pick a backend at run time; `fresh`: [`FreshStores`],
//!   one new empty store per run, sharing a managed PostgreSQL server among them, each touched
//!   first ([`first_touch`]) so that its one-time costs stay out of what is timed on it.
//! - `profile`: the profile names and what each promises per commit ([`Profile`],
//!   [`Durability`]), so every tool accepts the same names; `profile_table`: them as
//!   `triebench profiles` prints them ([`profile_table()`]).
//! - `store`: the trait generic code calls ([`Store`], [`ReadTx`], [`WriteTx`], [`Table`]),
//!   statically dispatched, so the trie pays no boxing per operation.
//! - [`phase`]: the phases of a commit ([`Phase`]) and the span macro the trie and `traced`
//!   open them with; [`traced`]: [`Traced`], a transaction timed per storage phase.
//! - `range`: [`KeyRange`], the bounds of an ordered scan, shared by every backend.
//! - [`btree`], `lmdb`, `sqlite`, `redis`, `postgres`: the backends, one module each (the last
//!   four behind their features, so a build pulls in only the libraries it uses).
//! - `server_user`, `private_dir`, `dir_handle`, `secret`: what the managed servers (Redis,
//!   PostgreSQL) are locked with: the unprivileged user they run as, the private directory of
//!   their socket, the directory handle their files under `--dir` are opened through (links not
//!   followed), and the random password.
//! - `store_dir`: the directory an LMDB or SQLite store opens its files in by name, refused as
//!   root when another user can write to it.
//! - `error`: [`KvError`], what every backend maps its native failures onto, with what to do.
//! - [`temp_store_dir`]: a command's private temporary store directory ([`TempStoreDir`]),
//!   removed on SIGINT/SIGTERM too, and those of killed runs removed by the next.
//! - [`versions`]: the versions of the storage libraries this build links, for run records.
//!
//! Inside the crate, modules import an item from the module that defines it, never through the
//! crate root's re-exports, so no module imports one that imports it back.
//!
//! A [`Store`] holds named tables, declared when it is opened. It hands out any number of
//! [`ReadTx`] readers and one [`WriteTx`] writer at a time. Everything is statically dispatched:
//! the reader and writer types are associated types of the store, so code generic over
//! `S: Store` pays no boxing per operation.
//!
//! Backends (one module each) and the profiles that select them are listed in [`Profile`];
//! [`BackendSpec`] turns a profile name plus a directory into an open store for the CLI, the
//! benches and the tests alike. The suite every backend passes is
//! `triebench-kv-conformance`, a crate of its own.

mod any_store;
pub mod btree;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod child;
pub mod compaction;
pub mod content_cache;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod dir_handle;
mod error;
pub mod first_touch;
mod fresh;
pub mod net_hop;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod pending_asks;
pub mod phase;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod private_dir;
mod profile;
mod profile_table;
mod range;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod secret;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod server_user;
mod spec;
mod store;
#[cfg(any(feature = "lmdb", feature = "sqlite-db"))]
mod store_dir;
pub mod temp_store_dir;
pub mod traced;
pub mod versions;

#[cfg(feature = "lmdb")]
pub mod lmdb;
#[cfg(feature = "postgres-db")]
pub mod postgres;
#[cfg(feature = "redis-db")]
pub mod redis;
#[cfg(feature = "sqlite-db")]
pub mod sqlite;

pub use any_store::{AnyReader, AnyStore, AnyWriter, StoreVisitor};
pub use compaction::Compaction;
pub use content_cache::ContentCache;
pub use error::{KvError, KvResult};
pub use fresh::FreshStores;
pub use phase::Phase;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
pub use private_dir::{remove_orphaned_server_dirs, SERVER_DIRS_VAR};
pub use profile::{Durability, Failover, Profile, DEFAULT_LMDB_MAP_SIZE, MANAGED_SERVERS};
pub use profile_table::profile_table;
pub use range::KeyRange;
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
pub use server_user::SERVER_ACCOUNT_NAME;
pub use spec::BackendSpec;
pub use store::{ReadTx, Store, Table, WriteTx};
pub use temp_store_dir::TempStoreDir;
pub use traced::Traced;
pub use triebench_netdelay::DelaySpec;

/// The README's examples, compiled and run by `cargo test --doc` so that they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
