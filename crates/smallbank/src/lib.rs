//! SmallBank end to end: Transact 0.4.7's seeded SmallBank playlist, executed block by block
//! through Transact's serial scheduler, executor and SmallBank handler over
//! `triebench-transact-state` on any profile, each block committed and the previous root
//! pruned, with Transact's own `MerkleState` (in memory) run beside it as the reference:
//! every block's state changes and root must be the same on both, or the run stops naming the
//! first block that differs.
//!
//! [`run()`] does it and returns a [`SmallbankResult`]: transactions/s and blocks/s, per-block
//! execution and commit p50/p99 for each side, bytes written per block and the state's size.
//! With [`SmallbankOptions::trace`] the run's per-block changes are also written as a commit
//! file `triebench root` replays, with the roots beside it.
//!
//! [`SmallbankOptions::transact`] puts one of Transact's own durable states (its LMDB
//! `MerkleState`, its SQLite or PostgreSQL `SqlMerkleState`) in the reference's place: they
//! cannot link beside triebench-kv, so `transact-runner smallbank` (crates/transact-compare)
//! runs that side in a process of its own, block by block in turn with this one
//! ([`runner_protocol`], [`serve()`]).
//!
//! [`SmallbankOptions::family`] runs Transact's command family instead ([`command`]: keys
//! created, then each transaction reads one key and writes it), through the same executor,
//! beside the same reference.

pub mod batch;
pub mod blocks;
pub mod command;
pub mod error;
pub mod family;
pub mod io_counter;
pub mod options;
pub mod pipeline;
pub mod playlist;
pub mod reference;
pub mod result;
pub mod run;
pub mod runner_child;
pub mod runner_protocol;
pub mod serve;
pub mod side;
pub mod transaction;

pub use error::SmallbankError;
pub use family::{Family, FAMILIES};
pub use options::{SmallbankOptions, TransactStore};
pub use result::{Percentiles, SideFigures, SmallbankResult};
pub use run::{roots_path, run, Progress};
pub use runner_protocol::RunnerRequest;
pub use serve::{serve, Served};
pub use side::FullState;
