//! I/O profiles (`io-profile.json`): what each backend profile asks of the filesystem per
//! scenario and per commit, counted on a slowfs mount by `triebench io-profile`. The file's
//! types live in `triebench-record`.

pub use triebench_record::io_profile::{IoCounts, IoProfileFile, IoRow, FILE_NAME, SCHEMA};
