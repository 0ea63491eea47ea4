//! `crash-models.json`: what `triebench crash-test --model` found exploring crash states per
//! backend profile and crash model, and what an injected fsync `EIO` did. The file's types live
//! in `triebench-record`, which the command writes them with.

pub use triebench_record::crash_models::*;
