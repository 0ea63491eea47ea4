//! Reading measurements into the [model](crate::model): criterion's saved baselines, the run
//! sidecars, the filesystem itself (mounts, statfs, latency probes), slowfs counters, the host
//! and library versions.
//!
//! - [`crash`]: crash-test results (`crash.json`) beside the run sidecars.
//! - [`cpu_idle`]: holds idle CPUs polling while a headline measures, and its record of that.
//! - [`criterion_home`]: where criterion writes its output (the default `--criterion-dir`).
//! - [`criterion_reader`]: indexes criterion's output and loads each run's measurements.
//! - [`fs_info`]: which filesystem a directory is on; the per-run sidecar.
//! - [`headline_run`]: takes a filesystem's headline (every scenario per profile, samples
//!   within runs) and saves it as criterion baselines.
//! - [`micro_run`]: the headline's small benchmarks (fsync and SHA-512 floors, a phase span's
//!   cost), taken without criterion.
//! - [`latency`]: a directory's cost per operation class, measured.
//! - [`slowfs_stats`]: a slowfs mount's live counters.
//! - [`io_profile_run`]: takes an I/O profile (every scenario per profile on slowfs) and loads
//!   the saved one.
//! - [`run_folders`]: run folders from several machines, merged into one criterion directory.
//! - [`proc_monitor`]: a load run's memory, CPU and store size, sampled from `/proc`.
//! - [`load_runs`]: the load folders bench-fs.sh keeps beside the sidecars.
//! - [`phases`]: the phase collector (a `tracing` layer summing time per phase);
//!   [`phases_run`]: takes a filesystem's phase breakdown (every scenario per profile).
//! - [`trie_warm_up`]: untimed runs that grow the trie's per-thread buffers before a command
//!   measures its first profile.
//! - [`env`](mod@env), [`versions`]: the machine and software a run's numbers come from.

pub mod cpu_idle;
pub mod crash;
pub mod criterion_home;
pub mod criterion_reader;
pub mod env;
pub mod fs_info;
pub mod headline_run;
pub mod io_profile_run;
pub mod latency;
pub mod load_runs;
pub mod micro_run;
pub mod phases;
pub mod phases_run;
pub mod proc_monitor;
pub mod run_folders;
pub mod slowfs_stats;
pub mod trie_warm_up;
pub mod versions;
