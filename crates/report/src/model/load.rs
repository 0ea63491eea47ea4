//! `load.json`: what a `triebench load` run offered and measured (commit and read latency, the
//! c × r matrix, the saturation point), with its environment; and the names of the files a load
//! folder holds. The file's types live in `triebench-record`.

pub use triebench_record::load::*;
