//! Reading files into the [model](crate::model): criterion's saved baselines, the run records
//! the measuring commands write, the sidecars beside them, and the host a report is made on.
//!
//! - `criterion_home`: where criterion writes its output (the default `--criterion-dir`).
//! - `run_records`: run records (`triebench-runs/records/<run>/<command>.json`) as
//!   measurements.
//! - `criterion_reader`: indexes criterion's output and the run records, and loads each run's
//!   measurements.
//! - [`fs_info`]: the per-run filesystem sidecar and the run-name rule.
//! - `cpu_idle`: the CPU idle record a headline leaves.
//! - `crash`: crash-test results (`crash.json`) beside the run sidecars.
//! - `crash_models`: crash-state explorations (`crash-models.json`) beside the run sidecars.
//! - `io_profile_file`: the saved I/O profile.
//! - [`phase_files`]: the phase breakdowns saved per run.
//! - [`engines_files`]: engines runs (`engines.json`) under a results folder or a criterion
//!   directory.
//! - `grow_files`: growth curves (`grow.json`) under a results folder.
//! - [`load_runs`]: the load folders bench-fs.sh keeps beside the sidecars.
//! - [`run_folders`]: run folders from several machines, merged into one criterion directory.
//! - [`anchors`]: the published figures (`anchors.json`); [`field_records`]: field and
//!   SmallBank run records under a results folder.
//! - [`side`]: a result folder, run folder, criterion directory or `criterion:NAME` as one
//!   side of a comparison.
//! - `env`, `versions`: the machine a report is made on and the versions it states.

pub mod anchors;
pub(crate) mod cpu_idle;
pub(crate) mod crash;
pub(crate) mod crash_models;
pub(crate) mod criterion_home;
pub(crate) mod criterion_reader;
pub mod engines_files;
pub(crate) mod env;
pub mod field_records;
pub mod fs_info;
pub(crate) mod grow_files;
pub(crate) mod io_profile_file;
pub mod load_runs;
pub(crate) mod net_files;
pub mod phase_files;
pub mod run_folders;
pub(crate) mod run_records;
pub mod side;
pub(crate) mod versions;
