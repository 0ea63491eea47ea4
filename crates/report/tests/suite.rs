//! Every integration test of `triebench-report`, in one test binary: each file under `tests/`
//! stays a module of its own, with its own `mod common;` (hence `duplicate_mod`), so a file
//! reads as it did when it was a binary of its own. One binary instead of one per file: each
//! of those linked every dependency again, most of the test command's build time.
//! `scripts/check-test-suites.py` fails when a file here is not named below.
#![allow(clippy::duplicate_mod)]

#[path = "load_files.rs"]
mod load_files;
#[path = "out_folder.rs"]
mod out_folder;
#[path = "report_crash_models.rs"]
mod report_crash_models;
#[path = "report_end_to_end.rs"]
mod report_end_to_end;
#[path = "report_engines.rs"]
mod report_engines;
#[path = "report_lab.rs"]
mod report_lab;
#[path = "report_net.rs"]
mod report_net;
#[path = "report_phases.rs"]
mod report_phases;
#[path = "report_published.rs"]
mod report_published;
#[path = "report_reader.rs"]
mod report_reader;
#[path = "report_run_records.rs"]
mod report_run_records;
#[path = "report_stats.rs"]
mod report_stats;
#[path = "report_transact.rs"]
mod report_transact;
#[path = "report_trust.rs"]
mod report_trust;
