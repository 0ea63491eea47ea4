//! One file per `triebench` subcommand: its arguments and the function that runs it.

pub mod capture_fs;
pub mod io_profile;
pub mod load;
pub mod profiles;
pub mod report;
pub mod root;
