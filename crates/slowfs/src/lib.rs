//! slowfs: a FUSE passthrough filesystem that delays and counts operations, to emulate network
//! storage such as Amazon EFS in benchmarks, and to show how many fsyncs, writes, reads and
//! metadata operations a storage backend asks of its filesystem.
//!
//! The stats model ([`class`], [`op`], [`profile`], [`stats`], [`snapshot`]) works without FUSE;
//! `fs` is the FUSE filesystem, [`inodes`] its inode table, and `mount` mounts and serves it
//! (both with the `mount` feature).
//! The `slowfs` binary is the command line over `mount::run`. Without the default `mount`
//! feature only the stats model is built (no fuser), which is what `triebench-harness` uses to
//! read a mount's counters.
//!
//! Limits: path-based inodes (hard links are separate inodes to the kernel); extended
//! attributes are not passed through (`ENOSYS`); locks are the kernel's local ones; the backing
//! directory must not be changed behind the mount's back (the kernel keeps file data cached
//! across opens).

pub mod class;
pub mod error;
#[cfg(feature = "mount")]
pub mod fs;
pub mod inodes;
#[cfg(feature = "mount")]
pub mod mount;
pub mod mountinfo;
pub mod op;
pub mod profile;
pub mod snapshot;
pub mod stats;

pub use class::{OpClass, PerClass};
pub use error::SlowfsError;
#[cfg(feature = "mount")]
pub use mount::{run, MountConfig};
pub use profile::{Latency, Profile};
pub use snapshot::{ClassCounts, StatsSnapshot};
pub use stats::Stats;
