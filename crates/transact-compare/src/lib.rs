//! `triebench-transact`: Hyperledger Transact's own merkle states, driven by triebench's
//! workloads, so the benchmark and the tests can put Transact beside triebench.
//!
//! This crate is a Cargo workspace of its own (the root workspace excludes it): Transact 0.3.7
//! (rusqlite 0.22) and 0.4.7 (diesel 1.4) link `libsqlite3-sys` 0.17, triebench's SQLite backend
//! links 0.35, and one lock file admits one `links = "sqlite3"` crate. The root benches reach it
//! through the `transact-runner` binary.
//!
//! Modules, in data order:
//! - [`error`]: [`TransactError`], what failed and in which Transact call.
//! - [`state`]: [`TransactState`], the one interface the workloads use (commit, compute, get,
//!   prune), and [`Change`], a set or delete.
//! - [`adapter`]: the adapter from a Transact version's `Write`/`Read`/`Prune` traits, written
//!   once as a macro; [`v047`], [`v037`]: it, stamped out per version.
//! - [`implementation`]: [`Implementation`], every Transact store this crate can open (id such
//!   as `transact-0.4.7:lmdb`), opened in a fresh directory.
//! - [`scenarios`]: Transact's ten `merkle_trie_*` scenarios over a [`TransactState`], with the
//!   same data as `triebench_workloads`.

pub mod adapter;
pub mod error;
pub mod implementation;
pub mod scenarios;
pub mod state;
pub mod v037;
pub mod v047;

pub use error::TransactError;
pub use implementation::{Implementation, OpenState, IMPLEMENTATIONS};
pub use state::{Change, TransactState};
