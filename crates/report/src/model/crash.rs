//! `crash.json`: what `triebench crash-test` found, per backend profile and crash mode. The
//! file's types live in `triebench-record`, which the command writes them with.

pub use triebench_record::crash::*;
