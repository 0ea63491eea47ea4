//! `triebench-harness`: what runs on top of the trie.
//!
//! - [`workloads`]: Transact's ten `merkle_trie_*` scenarios as functions generic over the
//!   storage trait, self-checking, for the benches to time and the tests to assert.
//! - [`commit_file`]: the JSON Lines commit format of `triebench root` and its replay.
//! - [`iolab`]: I/O profiles from slowfs counters, per-filesystem latency probes and the
//!   slowdown predictor.
//!
//! The `triebench` binary (`src/main.rs`) is a thin CLI over these.

pub mod commit_file;
pub mod iolab;
pub mod report;
pub mod workloads;
