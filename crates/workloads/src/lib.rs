//! `triebench-workloads`: what runs against a store, generic over [`triebench_kv::Store`].
//!
//! Data flow: a workload drives a [`triebench_merkle::MerkleTrie`] over the store it is given;
//! the caller (a bench, a test, the CLI) times it and decides what to write. Nothing here
//! writes files or measures time (the load generator reads time only through its `Clock`).
//!
//! - [`scenarios`]: Transact's ten `merkle_trie_*` scenarios, self-checking ([`Scenario`],
//!   [`SCENARIOS`], [`run_scenario`]).
//! - [`rng`]: the seeded generator the `update` scenario shares with Transact's test.
//! - [`scalable`]: fresh key batches and preloads of any size, for the scalable benches.
//! - [`floor`]: the storage floor of a trie commit: `update`'s recorded writes replayed without
//!   the trie.
//! - [`commit_file`]: the JSON Lines commit format of `triebench root` and its replay.
//! - [`load`]: the load generator (`triebench load`): production-shaped state, an open-loop
//!   writer, closed-loop readers, latency histograms and the saturation search.
//! - [`error`]: [`WorkloadError`], why a scenario failed.

pub mod commit_file;
pub mod error;
pub mod field;
pub mod floor;
pub mod load;
pub mod rng;
pub mod scalable;
pub mod scenarios;

pub use error::WorkloadError;
pub use scenarios::{
    run_scenario, update_address, update_commits, update_key, Lap, Outcome, Scenario, Step,
    SCENARIOS, UPDATE_FINAL_ROOT, UPDATE_KEYS, UPDATE_LOADED_ROOT, UPDATE_SEED,
};
