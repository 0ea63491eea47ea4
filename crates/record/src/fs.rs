//! The filesystem a run was on, as its sidecar (and a run record) records it: type, mount,
//! statfs and the measured cost per operation class.

use serde::{Deserialize, Serialize};

use crate::class::PerClass;

/// The filesystem a run's directory (its `TMPDIR`) was on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FsInfo {
    /// The run (criterion baseline) name.
    pub name: String,
    /// The directory the run used, canonicalised.
    pub dir: String,
    /// Filesystem type as the kernel names it (`ext4`, `tmpfs`, `nfs4`, `fuse.slowfs`, ...).
    pub fs_type: String,
    /// Where that filesystem is mounted.
    pub mount_point: String,
    /// The mount source (block device, server export, or a pseudo name like `tmpfs`).
    pub device: String,
    /// Per-mount options, then the superblock options not already listed, comma-separated.
    pub mount_options: String,
    /// What statfs(2) says about the directory, when it was captured by triebench.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statfs: Option<StatFs>,
    /// Median cost per operation class in the directory (µs), measured by
    /// the measuring crate's latency probe when the run was captured; what the slowdown predictor charges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<PerClass<f64>>,
    /// What each further separate run of dirty data adds to an fdatasync (µs), measured by
    /// the measuring crate's flush-extent probe with `latency_us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_extent_us: Option<f64>,
}

/// The statfs(2) facts recorded for a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatFs {
    /// `f_type`, the filesystem magic number, as `0x...` hex.
    pub magic: String,
    /// `f_bsize`.
    pub block_size: u64,
    /// `f_blocks * f_frsize`.
    pub total_bytes: u64,
    /// `f_bavail * f_frsize`.
    pub available_bytes: u64,
}
