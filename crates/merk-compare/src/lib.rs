//! `triebench-merk`: Merk 2.0.1, Nomic's Merkle AVL tree over RocksDB, run by its own code on
//! triebench's `merk` field workload, so `triebench field --workload merk` can set Merk's
//! figures measured in the same run beside ours instead of quoting its README's.
//!
//! # Modules, in data order
//!
//! - [`args`]: merk-runner's command line.
//! - [`batch`]: a field commit as Merk's sorted batch, addresses back to 16-byte keys.
//! - [`bench`](mod@bench): [`MerkBench`](bench::MerkBench), the workload on a Merk store, timed per phase,
//!   every read checked.
//! - [`disk`]: the store's bytes on disk and the RocksDB version its log names.
//! - [`error`] holds [`MerkError`](error::MerkError), every way a run stops.
//!
//! It is a workspace of its own (merk builds on a nightly Rust only, and links RocksDB); the
//! root workspace reaches it through the `merk-runner` binary, which prints one JSON line, a
//! [`MerkSide`](triebench_record::merk_side::MerkSide).

pub mod args;
pub mod batch;
pub mod bench;
pub mod disk;
pub mod error;
