//! What idle CPUs did while a headline measured (held polling or left to the OS, and why): the
//! record's type lives in `triebench-record`, the files measuring and reporting share.

pub use triebench_record::cpu_idle::{CpuIdle, CpuIdleRecord};
