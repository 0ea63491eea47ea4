//! `triebench bench`'s run plan: the main job (what `scripts/bench-fs.sh` did in bash) as data,
//! then run.
//!
//! [`steps::plan`] turns the options into a [`steps::Plan`] (a pure function: scale -> budgets,
//! rounds and which steps run); [`execute::execute`] runs it by calling the commands' own entry
//! points in-process (criterion's benches excepted: they are `cargo bench` targets), timing each
//! step; [`export`] writes the self-contained run folders `report --runs` merges.

pub mod checkout;
pub mod criterion_route;
pub mod describe;
pub mod error;
pub mod execute;
pub mod export;
pub mod iolab;
pub mod run_spec;
pub mod scale;
pub mod steps;
