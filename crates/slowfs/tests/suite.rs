//! Every integration test of `triebench-slowfs`, in one test binary: each file under `tests/`
//! stays a module of its own, with its own `mod common;` (hence `duplicate_mod`), so a file
//! reads as it did when it was a binary of its own. One binary instead of one per file: each
//! of those linked every dependency again, most of the test command's build time.
//! `scripts/check-test-suites.py` fails when a file here is not named below.
#![allow(clippy::duplicate_mod)]

#[path = "cli_errors.rs"]
mod cli_errors;
#[path = "conformance_on_slowfs.rs"]
mod conformance_on_slowfs;
#[path = "crash_models.rs"]
mod crash_models;
#[path = "io_profile_on_slowfs.rs"]
mod io_profile_on_slowfs;
#[path = "mount.rs"]
mod mount;
#[path = "other_users.rs"]
mod other_users;
#[path = "planted_bugs.rs"]
mod planted_bugs;
#[path = "power_cut.rs"]
mod power_cut;
#[path = "sqlite_long_log_crash.rs"]
mod sqlite_long_log_crash;
