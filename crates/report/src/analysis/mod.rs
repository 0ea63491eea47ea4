//! Analysis of the [model](crate::model): statistics, ratios, what is missing, predictions.
//!
//! - [`above_floor`]: what each profile pays above its storage floor per commit, with its
//!   interval (paired by round where the run record pairs the samples).
//! - [`stats`]: bootstrap confidence intervals of ratios of means.
//! - [`ratios`]: slowdowns (vs the baseline filesystem) and overheads (vs `btree`).
//! - [`missing`]: runs, cells and floors that are absent.
//! - `predict`: predicted time = baseline time + Σ per class (count × extra latency).
//! - `lab`: predictions for every run with measured costs and for AWS EFS.
//! - `phases`: where a commit's time goes, as shares per phase, and what a span costs.
//! - [`compare`]: two sides (result folders, run folders, criterion baselines) benchmark by
//!   benchmark, with bootstrap intervals and a verdict against a noise threshold.
//! - `crash_models`: crash-state explorations per profile and model, ordered, with reruns.
//! - [`engines`]: engines side by side: the backend's part of a commit, each engine ÷ the trie.
//! - `grow`: a growth curve summed up at its largest state.
//! - [`above_floor`]: a profile's `update` commit above its own storage floor, with an interval.
//! - `host_free`: that above-floor ÷ `btree`'s, the figure that holds across hosts.
//! - `trust`: what in the report's own data does not hold up (inversions, negative
//!   above-floors, wide intervals, few samples, a busy machine), each with its rerun command.
//! - [`published`]: field and SmallBank runs beside the published figures, with ratios.
//! - `transact`: triebench vs Transact's own implementations, per run (feature `transact`).

pub mod above_floor;
pub mod compare;
pub(crate) mod crash_models;
pub mod engines;
pub(crate) mod grow;
pub(crate) mod host_free;
pub(crate) mod lab;
pub mod missing;
pub(crate) mod net;
pub(crate) mod phases;
pub(crate) mod predict;
pub mod published;
pub mod ratios;
pub mod stats;
pub(crate) mod transact;
pub(crate) mod trust;
