//! `env.json`'s vocabulary: the machine, filesystems and software versions a report's (or a load
//! run's) numbers come from. Captured by [`crate::read::env`] and [`crate::read::versions`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::fs::FsInfo;

/// The machine the report was generated on (normally the one that ran the benches).
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

/// The whole of `env.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvInfo {
    /// When the report was generated (UTC, RFC 3339).
    pub generated_at: String,
    /// The machine.
    pub host: HostInfo,
    /// Each run's filesystem (`null` when the run has no sidecar or does not exist).
    pub filesystems: BTreeMap<String, Option<FsInfo>>,
    /// Software versions.
    pub versions: Versions,
    /// The criterion directory read.
    pub criterion_dir: String,
    /// The baseline run.
    pub baseline: String,
    /// All runs, baseline first.
    pub runs: Vec<String>,
}

/// What `env.json` records as versions. Libraries not compiled into this build read
/// `"not built"`; a missing `redis-server` reads `"not found"`.
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
