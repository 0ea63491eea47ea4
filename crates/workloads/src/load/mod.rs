//! The load generator: how many commits per second a backend sustains, at what latency, while
//! readers read the state (`triebench load`).
//!
//! Modules, in data order:
//!
//! - [`state`]: production-shaped keys and values, the writer's changes, the preload.
//! - [`clock`]: the only source of time ([`SystemClock`], [`FakeClock`] for tests).
//! - [`schedule`]: intended start times at a fixed rate (open loop).
//! - [`stats`]: latency histograms per operation kind, whole run and per second.
//! - [`open_loop`]: the writer's loop, latency from the intended start (coordinated omission).
//! - [`monitor`]: what is sampled once per second besides latency (RSS, CPU, store size).
//! - [`run`]: one run (writer, readers, sampler on scoped threads).
//! - [`verdict`]: whether one rate holds, run again while a failing p99 rests on too few
//!   commits.
//! - [`saturate`]: the highest rate that holds a latency bound (grow, then bisect).
//! - [`error`](mod@error): [`LoadError`], why a run could not start or stopped.
//!
//! Nothing here writes files or reads the wall clock except through [`SystemClock`].

pub mod clock;
pub mod error;
pub mod monitor;
pub mod open_loop;
pub mod run;
pub mod saturate;
pub mod schedule;
pub mod state;
pub mod stats;
pub mod verdict;

pub use clock::{Clock, FakeClock, SystemClock};
pub use error::LoadError;
pub use monitor::{Monitor, NoMonitor, ResourceSample};
pub use run::{run_load, LoadState, RunConfig, RunResult, SecondSample};
pub use saturate::{SearchPlan, SearchStep};
pub use schedule::Schedule;
pub use state::{preload, KeyWindow, Mix, StateShape};
pub use stats::{OpStats, Recorder};
pub use verdict::{judge, Judged, StepRule, Verdict};
