//! The report's vocabulary, shared by every later stage: what a benchmark is, what was measured,
//! which filesystem it ran on, what a run asked of the filesystem, and how things are named.
//!
//! - [`bench_id`]: criterion's (group, function, parameter) and the triebench naming of it.
//! - [`results`]: runs × benchmarks with estimates and raw samples.
//! - `fs`: a run's filesystem and its measured cost per operation class.
//! - [`io_profile`]: operations per profile × scenario counted on slowfs (`io-profile.json`).
//! - [`load`]: what a `triebench load` run offered and measured (`load.json`).
//! - `grow`: a growth curve (`grow.json`) and the filesystem it is shown under.
//! - [`engines`]: an engines run (`engines.json`) and the filesystem it is shown under.
//! - `net`: headline and load runs at an emulated distance from their database server.
//! - `env`: the machine and software versions (`env.json`).
//! - [`phases`]: time per phase of a run, and a filesystem's phase rows per profile.
//! - `naming`: result folder names and UTC dates.
//! - `merged_run`: a run folder (its format is `triebench_record::run_folder`) merged into a
//!   multi-machine report.
//! - `crash`: what `triebench crash-test` found per profile and crash mode (`crash.json`).
//! - `crash_models`: crash states explored per profile and crash model (`crash-models.json`).
//! - [`cpu_idle`]: what idle CPUs did while a headline measured (held polling or not).
//! - [`anchors`]: the field's published figures and their sources (`anchors.json`);
//!   [`field_runs`]: the field and SmallBank run records found under a folder.
//! - [`side`]: one side of `triebench compare` (or what `triebench export` exports).
//!
//! The file types of `fs`, [`cpu_idle`], [`io_profile`], [`load`], [`phases`], the host and
//! version types of `env`, the time functions of `naming` and the profile,
//! scenario and benchmark names of [`bench_id`] are `triebench-record`'s, the files the
//! measuring crate writes: re-exported here, so the report needs no storage or workload crate.

pub mod anchors;
pub mod bench_id;
pub mod cpu_idle;
pub(crate) mod crash;
pub(crate) mod crash_models;
pub mod engines;
pub(crate) mod env;
pub mod field_runs;
pub(crate) mod fs;
pub(crate) mod grow;
pub mod io_profile;
pub mod load;
pub(crate) mod merged_run;
pub(crate) mod naming;
pub(crate) mod net;
pub mod phases;
pub mod results;
pub mod side;
