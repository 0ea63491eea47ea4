//! The steps of the main job, each also a `triebench` command of its own: typed options in, the
//! measurement (`triebench-measure`) or the report (`triebench-report`) run, its files written
//! and its lines printed.

pub mod capture_fs;
pub mod compare;
pub mod dashboard;
pub mod engines;
pub mod field;
pub mod field_merk;
pub mod grow;
pub mod headline;
pub mod io_profile;
pub mod load;
pub mod load_args;
pub mod load_temp;
pub mod phases;
pub mod report;
pub mod root;
pub mod smallbank;
