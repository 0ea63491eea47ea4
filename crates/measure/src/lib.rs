//! `triebench-measure`: runs triebench's workloads to take measurements, and writes what it
//! measured as files the report reads (`triebench-record`'s run records and sidecars). It is the
//! measuring half of what criterion does for `cargo bench`; `triebench-report` is the other half
//! and the two meet only in those files.
//!
//! # Modules, in data order
//!
//! - [`make_dir`]: the directories a measurement is given, made safely; [`outputs`]: its output
//!   files and folders checked writable before it measures; [`profile_choice`]: the `--profiles`
//!   a measurement runs, parsed and checked against its directory.
//! - [`cpu_idle`]: holds idle CPUs polling while a command measures, and saves what it got.
//! - [`host_load`]: samples how busy the machine is (load average, stolen CPU, other
//!   processes' CPU) stretch by stretch while a command measures.
//! - [`versions`]: the library, server and triebench versions a run record records.
//! - [`fs_capture`]: which filesystem a directory is on, captured as the run's sidecar;
//!   [`latency`]: its cost per operation class, measured.
//! - [`phases`]: the phase collector (a `tracing` layer summing time per phase);
//!   [`phase_tally`]: its totals summed over several runs.
//! - [`trie_warm_up`]: untimed runs that grow the trie's per-thread buffers before a command
//!   measures its first profile.
//! - [`micro_run`]: the headline's small benchmarks (fsync and SHA-512 floors, a phase span's
//!   cost), taken without criterion.
//! - [`headline_samples`]: samples taken within runs; [`headline_run`]: a filesystem's
//!   headline (every scenario and the suite per profile, and the storage floor).
//! - [`headline_record`]: the headline's run record, written as
//!   `<criterion-dir>/triebench-runs/records/<run>/headline.json`.
//! - [`phases_run`]: a filesystem's phase breakdown (every scenario per profile).
//! - [`slowfs_stats`]: a slowfs mount's live counters; [`io_profile_run`]: an I/O profile
//!   (every scenario per profile, counted on slowfs).
//! - [`proc_monitor`]: a load run's memory, CPU and store size, sampled from `/proc`;
//!   [`load_summary`]: a run's summary as `load.json` holds it; [`load_run`]: a load run on
//!   an opened store (preload, the readers × rate matrix or the saturation search);
//!   [`load_env`]: the environment a load run records.
//! - [`grow_run`]: a growth curve (fill in large batches, then per checkpoint commits, warm
//!   and cold reads, size, memory); [`fill_floor`]: the fill's storage floor beside it;
//!   [`grow_whatif`]: the path-compression what-if of a state;
//!   [`page_evict`]: a store's files dropped from the page cache; [`mem_cgroup`]: the memory
//!   cgroup of a bounded run; [`grow_budget`]: what a bounded run holds in its own memory and
//!   the fill batch that fits the bound.
//! - [`engines_run`]: authenticated state engines side by side (the same workloads on each
//!   engine × profile, each checked against its reference first); [`engine_scenarios`]:
//!   Transact's scenarios as every engine can run them.
//! - [`field_run`]: a field workload's commits on a store, timed per commit;
//!   [`merk_runner`]: Merk's own code on a `merk` run's commits (`merk-runner`), in the same run.
//! - [`error`]: [`MeasureError`], everything that stops a measurement.

pub mod cpu_idle;
pub mod engine_scenarios;
pub mod engines_run;
pub mod error;
pub mod field_run;
pub mod fill_floor;
pub mod fs_capture;
pub mod grow_budget;
pub mod grow_run;
pub mod grow_whatif;
pub mod headline_record;
pub mod headline_run;
pub mod headline_samples;
pub mod host_load;
pub mod io_profile_run;
pub mod latency;
pub mod load_env;
pub mod load_run;
pub mod load_summary;
pub mod make_dir;
pub mod mem_cgroup;
pub mod merk_runner;
pub mod micro_run;
pub mod outputs;
pub mod page_evict;
pub mod phase_tally;
pub mod phases;
pub mod phases_run;
pub mod proc_monitor;
pub mod profile_choice;
pub mod slowfs_stats;
mod timed;
pub mod trie_warm_up;
pub mod versions;

use std::path::{Path, PathBuf};

pub use error::MeasureError;
pub use fs_capture::fs_info_for_dir;
pub use triebench_record::FsInfo;

/// Records the filesystem of `dir` (the TMPDIR run `name` uses), and its latency per operation
/// class when `probe_latency`, as `<criterion_dir>/triebench-runs/<name>.json`; returns that path
/// and what it recorded.
pub fn capture_fs(
    name: &str,
    dir: &Path,
    criterion_dir: &Path,
    probe_latency: bool,
) -> Result<(PathBuf, FsInfo), MeasureError> {
    fs_capture::write_sidecar(name, dir, criterion_dir, probe_latency)
}
