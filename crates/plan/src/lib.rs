//! `triebench-plan`: triebench's steps as a library, and the main job's run plan that runs them.
//!
//! Each step is also a `triebench` command of its own; the CLI parses its arguments into the
//! step's typed options and calls it, and so does the plan: no argument strings or clap types
//! pass between them. A step runs a measurement (`triebench-measure`) or a report
//! (`triebench-report`), writes its files and prints its lines.
//!
//! # Modules, in data order
//!
//! - [`step`]: the steps ([`step::capture_fs`], [`step::headline`], [`step::phases`],
//!   [`step::io_profile`], [`step::load`], [`step::grow`], [`step::report`], [`step::compare`],
//!   [`step::dashboard`], [`step::root`]), each an options struct and one function; [`flamegraph`]: a step sampled into a flamegraph SVG.
//! - [`scale`]: how big a run is; [`run_spec`]: the filesystems (`NAME=DIR`); [`iolab`]: the
//!   slowfs counting mount; [`checkout`]: the checkout criterion's benches are built in.
//! - [`steps`]: the options of `triebench bench` turned into a [`steps::Plan`] (a pure function:
//!   scale -> budgets, rounds and which steps run); [`describe`]: the plan as the lines printed
//!   before it runs.
//! - [`preflight`]: what is refused before minutes of measuring.
//! - [`execute`]: runs the plan, step by step, timed; [`criterion_route`]: the `cargo bench`
//!   command lines of criterion's benches (the one route that leaves the process).
//! - [`main_job`]: all of the above in order, as `triebench bench` runs it.
//! - [`export_run`]: a run copied out of the criterion directory into a run folder (the format is
//!   `triebench_record::run_folder`), which `report --runs` merges with other machines'.
//! - [`error`]: [`PlanError`], what stops a step or the plan.

pub mod checkout;
pub mod criterion_route;
pub mod describe;
pub mod error;
pub mod execute;
pub mod export_run;
pub mod flamegraph;
pub mod iolab;
pub mod main_job;
pub mod preflight;
pub mod run_spec;
pub mod scale;
pub mod step;
pub mod steps;

pub use error::PlanError;
