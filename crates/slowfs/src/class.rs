//! Operation classes: the four groups whose delays and counters slowfs keeps apart. The types
//! live in `triebench-record`, the file vocabulary slowfs shares with the report (a filesystem
//! sidecar's latencies are per class too); they are re-exported here under their old path.

pub use triebench_record::class::{OpClass, PerClass};
