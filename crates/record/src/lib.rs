//! `triebench-record`: the files between measuring and reporting. The measuring crate
//! (`triebench-measure`) writes them, the report (`triebench-report`) reads them; neither
//! imports the other, as criterion's measurement and its HTML report meet only in its files.
//!
//! # Modules, in data order
//!
//! - [`class`]: the four operation classes (metadata, read, write, sync) and a value per class,
//!   which slowfs counts and a filesystem's latency probe measures.
//! - [`fs`]: the filesystem a run was on ([`FsInfo`]).
//! - [`cpu_idle`]: what idle CPUs did while a run measured ([`CpuIdleRecord`]).
//! - [`env`](mod@env): the machine and software versions ([`HostInfo`], [`Versions`]);
//!   [`host`]: the machine this process runs on, read from `/proc`; [`host_load`]: how busy
//!   it was while a run measured ([`HostLoad`]).
//! - [`vocabulary`]: profile, scenario, phase and benchmark names both sides use, with the
//!   workload sizes the report divides by.
//! - [`time`]: UTC dates and timestamps.
//! - [`phases`]: a phase breakdown (`triebench phases`, `root --phases`) as its file holds it.
//! - [`io_profile`]: an I/O profile (`io-profile.json`): operations per profile and scenario.
//! - [`load`](mod@load): a load run (`load.json`): what was offered and measured.
//! - [`proc_stats`]: bytes written and memory held by a run's processes, from `/proc`.
//! - [`space`]: where a store's bytes go, per table and store-wide ([`StoreSpace`](space::StoreSpace)), which
//!   the growth curve records per checkpoint.
//! - [`field`]: a field workload's run (`triebench field --out`), with [`merk_side`]: Merk's
//!   own code on a `merk` run's commits, in the same run; [`smallbank`]: a SmallBank run beside
//!   Transact (`triebench smallbank --out`).
//! - [`grow`]: a growth curve (`grow.json`): costs per state size, `triebench grow`.
//! - [`engines`]: authenticated state engines side by side (`engines.json`), `triebench engines`.
//! - [`crash`]: what `triebench crash-test` found per profile and crash mode (`crash.json`).
//! - [`crash_models`]: what `triebench crash-test --model` and `--fsync-eio` found
//!   (`crash-models.json`).
//! - [`failover`]: what `triebench crash-test --failover` found per standby profile
//!   (`failover.json`).
//! - [`results`]: the one writer of those three: read the file a folder has, merge the new run,
//!   write it back atomically with its markdown table.
//! - [`run_record`]: the run record, one versioned file per run and command: environment,
//!   filesystem, CPU idle state and every benchmark's samples with their unit ([`RunRecord`]).
//! - [`run_folder`]: a run folder's manifest and machine (`export-run`, `bench`), the format
//!   `report --runs` merges.
//! - [`layout`]: where each file lives under `<criterion-dir>/triebench-runs/`, and the rule for
//!   run names.
//! - [`file`](mod@file): pretty JSON written atomically, read as `None` when absent.
//! - [`copy_tree`]: run folders copied and read safely: plain files and directories only,
//!   never through a link, never a FIFO or device, with a bound on what is read.
//! - [`excerpt`]: at most 100 bytes of any input in a message.
//! - [`error`]: [`RecordError`], every way a file fails to read, write or check.
//!
//! The run record's layout, fields, units and versioning rule are in [`run_record`] and in
//! `docs/run-record.md`.

pub mod class;
pub mod copy_tree;
pub mod cpu_idle;
pub mod crash;
pub mod crash_models;
pub mod engines;
pub mod env;
pub mod error;
pub mod excerpt;
pub mod failover;
pub mod field;
pub mod file;
pub mod fs;
pub mod grow;
pub mod host;
pub mod host_load;
pub mod io_profile;
pub mod layout;
pub mod load;
pub mod merk_side;
pub mod net;
pub mod phases;
pub mod proc_stats;
pub mod results;
pub mod run_folder;
pub mod run_record;
pub mod smallbank;
pub mod space;
pub mod time;
pub mod vocabulary;

pub use class::{OpClass, PerClass};
pub use cpu_idle::{CpuIdle, CpuIdleRecord};
pub use env::{HostInfo, Versions};
pub use error::RecordError;
pub use fs::{FsInfo, StatFs};
pub use host_load::{HostLoad, LoadSpan};
pub use run_record::{Benchmark, Environment, RunRecord, Sample, Throughput, ThroughputUnit, Unit};

/// The README's examples, compiled and run by `cargo test --doc` so that they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
