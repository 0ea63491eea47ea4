//! Every integration test of `triebench-cli`, in one test binary: each file under `tests/`
//! stays a module of its own, with its own `mod common;` (hence `duplicate_mod`), so a file
//! reads as it did when it was a binary of its own. One binary instead of one per file: each
//! of those linked every dependency again, most of the test command's build time.
//! `scripts/check-test-suites.py` fails when a file here is not named below.
#![allow(clippy::duplicate_mod)]

#[path = "cli_bad_input.rs"]
mod cli_bad_input;
#[path = "cli_bench.rs"]
mod cli_bench;
#[path = "cli_compare.rs"]
mod cli_compare;
#[path = "cli_criterion_dir.rs"]
mod cli_criterion_dir;
#[path = "cli_engines.rs"]
mod cli_engines;
#[path = "cli_field_merk.rs"]
mod cli_field_merk;
#[path = "cli_grow.rs"]
mod cli_grow;
#[path = "cli_headline.rs"]
mod cli_headline;
#[path = "cli_leftovers.rs"]
mod cli_leftovers;
#[path = "cli_load.rs"]
mod cli_load;
#[path = "cli_missing_dirs.rs"]
mod cli_missing_dirs;
#[path = "cli_net_report.rs"]
mod cli_net_report;
#[path = "cli_phases.rs"]
mod cli_phases;
#[path = "cli_report_field.rs"]
mod cli_report_field;
#[path = "cli_report_html.rs"]
mod cli_report_html;
#[path = "cli_report_inputs.rs"]
mod cli_report_inputs;
#[path = "cli_report_out.rs"]
mod cli_report_out;
#[path = "cli_report_runs.rs"]
mod cli_report_runs;
#[path = "cli_root.rs"]
mod cli_root;
#[path = "cli_run_folder_links.rs"]
mod cli_run_folder_links;
#[path = "cli_smallbank.rs"]
mod cli_smallbank;
#[path = "cli_temp_stores.rs"]
mod cli_temp_stores;
#[path = "crash_failover.rs"]
mod crash_failover;
#[path = "crash_models.rs"]
mod crash_models;
#[path = "crash_test.rs"]
mod crash_test;
#[path = "report_html_browser.rs"]
mod report_html_browser;
