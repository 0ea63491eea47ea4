//! `env.json`: the machine a report was generated on (read from `/proc` by
//! `triebench-record`'s [`host`](triebench_record::host) module) and the report's vocabulary for it.

pub use crate::model::env::EnvInfo;
pub use triebench_record::host::{capture_host, hostname};
