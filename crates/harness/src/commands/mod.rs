//! One file per `triebench` subcommand: its arguments and the function that runs it.

pub mod capture_fs;
pub mod flamegraph;
pub mod io_profile;
pub mod phases;
pub mod profiles;
pub mod report;
pub mod root;
