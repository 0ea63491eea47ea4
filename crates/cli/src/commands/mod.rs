//! One file per `triebench` subcommand: its arguments and the function that runs it.

pub mod bench;
pub mod capture_fs;
pub mod compare;
pub mod crash_child;
pub mod crash_mount;
pub mod crash_test;
pub mod criterion_dir_arg;
pub mod engines;
pub mod engines_report;
pub mod export;
pub mod export_run;
pub mod field;
pub mod grow;
pub mod grow_report;
pub mod headline;
pub mod io_profile;
pub mod load;
pub mod net_arg;
pub mod net_report;
pub mod phases;
pub mod profiles;
pub mod report;
pub mod root;
pub mod smallbank;
