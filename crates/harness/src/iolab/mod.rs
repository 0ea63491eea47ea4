//! The filesystem lab's measurement side: what each backend asks of a filesystem, what each
//! filesystem charges per request, and the slowdown those two predict.
//!
//! - [`OpClass`], [`PerClass`]: slowfs's four operation classes (metadata, read, write, sync),
//!   shared with the `triebench-slowfs` crate (built without its FUSE part).
//! - [`slowfs_stats`]: reading the live counters a slowfs mount serves at `<mount>/.slowfs-stats`.
//! - [`io_profile`]: runs every scenario once per backend profile on a slowfs mount (profile
//!   `none`) and records the operations per scenario and per commit (`triebench io-profile`).
//! - [`latency`]: measures a directory's cost per operation class (`triebench capture-fs` records
//!   it for each run).
//! - [`predict`]: predicted time = baseline time + Σ per class (count × extra latency).

pub mod error;
pub mod io_profile;
pub mod latency;
pub mod predict;
pub mod slowfs_stats;

pub use error::IoLabError;
pub use io_profile::{IoCounts, IoProfileFile, IoRow};
pub use triebench_slowfs::{OpClass, PerClass};
