//! The crash-test driver: what a crash-test child commits and how the parent checks what
//! survived, generic over [`Store`](triebench_kv::Store). Nothing here spawns, kills or writes
//! files; `triebench crash-test` does that and calls these.
//!
//! - [`batches`]: [`BatchGen`], random commits shaped like production (70-hex addresses, values
//!   up to 4 KiB, sets, updates and deletes), resumable from any surviving root.
//! - [`child`]: [`commit_forever`], the child's loop: commit, acknowledge the root, repeat.
//! - [`verify`]: [`check_roots`], the parent's check of every acknowledged root after a crash:
//!   it opens, its leaves read back, and [`root_of`](triebench_merkle::reference::root_of) those
//!   leaves equals it; [`RootCheck`] and [`RoundCheck`] count what was lost and what is corrupt.

pub mod batches;
pub mod child;
pub mod verify;

pub use batches::BatchGen;
pub use child::commit_forever;
pub use verify::{check_roots, RootCheck, RootFate, RoundCheck};
