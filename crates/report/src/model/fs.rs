//! The filesystem a run was on, as its sidecar records it: type, mount, statfs and the
//! measured cost per operation class. The types live in `triebench-record`.

pub use triebench_record::fs::FsInfo;
