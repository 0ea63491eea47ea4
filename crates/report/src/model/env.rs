//! `env.json`'s vocabulary: the machine, filesystems and software versions a report's (or a load
//! run's) numbers come from. Captured by [`crate::read::env`]; the
//! versions come from the runs' records.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use triebench_record::env::{HostInfo, Versions};

use crate::model::fs::FsInfo;

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
