//! slowfs: a FUSE passthrough filesystem that delays and counts operations, to emulate network
//! storage such as Amazon EFS in benchmarks, and to show how many fsyncs, writes, reads and
//! metadata operations a storage backend asks of its filesystem.
//!
//! Modules, in the order a request's data flows through them:
//!
//! - `mount`: checks the paths, mounts the filesystem and serves it until unmounted, then writes
//!   the final stats; [`mountinfo`] decodes the kernel's mount table for it and for readers.
//! - `fs`: the FUSE passthrough; runs each kernel request on the backing directory, then counts
//!   and delays it before replying.
//! - `power`: power-loss mode: what each file's unsynced changes overwrote, undone by a cut;
//!   `background` mounts it in-process for tools that cut power themselves.
//! - [`model`]: the stricter crash models (`metadata`, `reordered`, `torn`): the op log a mount
//!   writes (`--op-log`), crash states rebuilt from it offline, and fault injection
//!   (`--fail-fsync`, `--fail-write`, `--enospc-write`).
//! - [`inodes`]: which path each inode number the kernel holds stands for.
//! - [`op`]: the FUSE request types counted, each with its JSON name and its class.
//! - [`class`]: the four classes (metadata, read, write, sync) with their own delay and counters
//!   (`triebench-record`'s types, shared with the files the report reads).
//! - [`latency_profile`]: the per-class delays, named after the storage they emulate.
//! - [`stats`]: the live, lock-free counters a request is recorded in.
//! - [`snapshot`]: the counters frozen as the stats JSON that `.slowfs-stats` and `--stats-out`
//!   show, and that `triebench` reads back.
//! - [`error`]: what can go wrong setting a mount up or running it.
//!
//! The stats model ([`class`], [`op`], [`latency_profile`], [`stats`], [`snapshot`]) works without FUSE;
//! `fs` is the FUSE filesystem, [`inodes`] its inode table, and `mount` mounts and serves it
//! (both with the `mount` feature).
//! The `slowfs` binary is the command line over `mount::run`. Without the default `mount`
//! feature only the stats model is built (no fuser), which is what `triebench-measure` uses to
//! read a mount's counters. The mount is Linux only (FUSE through `/dev/fuse`): elsewhere
//! (macOS) the `mount` feature builds nothing and the binary says so.
//!
//! Limits: path-based inodes (hard links are separate inodes to the kernel); extended
//! attributes are not passed through (`ENOSYS`); locks are the kernel's local ones; the backing
//! directory must not be changed behind the mount's back (the kernel keeps file data cached
//! across opens).

#[cfg(all(feature = "mount", target_os = "linux"))]
pub mod background;
pub mod class;
pub mod error;
#[cfg(all(feature = "mount", target_os = "linux"))]
pub mod fs;
pub mod inodes;
pub mod latency_profile;
pub mod model;
#[cfg(all(feature = "mount", target_os = "linux"))]
pub mod mount;
pub mod mountinfo;
pub mod op;
#[cfg(all(feature = "mount", target_os = "linux"))]
pub mod power;
pub mod snapshot;
pub mod stats;

#[cfg(all(feature = "mount", target_os = "linux"))]
pub use background::PowerLossMount;
pub use class::{OpClass, PerClass};
pub use error::SlowfsError;
pub use latency_profile::{Latency, LatencyProfile};
#[cfg(all(feature = "mount", target_os = "linux"))]
pub use mount::{run, MountConfig};
pub use snapshot::{ClassCounts, StatsSnapshot};
pub use stats::Stats;

/// The virtual control file of power-loss mode: writing `cut` to it cuts power. (Here rather
/// than in `power`, so that a controller builds where the mount does not.)
pub const CONTROL_FILE: &str = ".slowfs-control";
