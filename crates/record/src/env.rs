//! The machine and the software a run's numbers come from, as a run record (and the report's
//! `env.json`, and a load run's `load.json`) record them.

use serde::{Deserialize, Serialize};

/// The machine a run (or a report) was made on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Host name.
    pub hostname: String,
    /// `model name` from /proc/cpuinfo.
    pub cpu_model: String,
    /// Logical CPUs available to this process.
    pub cores: usize,
    /// Distinct (physical id, core id) pairs in /proc/cpuinfo, when listed.
    pub physical_cores: Option<usize>,
    /// MemTotal from /proc/meminfo, in bytes.
    pub ram_bytes: Option<u64>,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Operating system and architecture, e.g. `linux x86_64`.
    pub os: String,
}

/// Versions of what produced the numbers. Libraries not compiled into the measuring build read
/// `"not built"`; a missing `redis-server` reads `"not found"`; what a reader cannot know (a
/// report of criterion output without run records) reads `"unknown"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Versions {
    /// SQLite library version (`rusqlite::version()`).
    pub sqlite: String,
    /// LMDB library version (`mdb_version`).
    pub lmdb: String,
    /// First line of `redis-server --version`.
    pub redis_server: String,
    /// triebench's crate version.
    pub triebench: String,
    /// `git rev-parse HEAD` of the checkout, or `unknown`.
    pub git_commit: String,
    /// Whether the checkout had uncommitted changes (`null` when unknown).
    pub git_dirty: Option<bool>,
}
