//! A run folder's vocabulary: what `scripts/export-run.sh` writes about a run and its machine,
//! and a run once merged into a multi-machine report.

use std::path::PathBuf;

use serde::Deserialize;

/// The file that marks a directory as a run folder.
pub const MANIFEST: &str = "manifest.json";

/// What `manifest.json` says about a run.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    /// The machine's host name.
    pub host: String,
    /// The run (filesystem) name on that machine, its criterion baseline name.
    pub filesystem: String,
    /// `TRIEBENCH_SCALE` of the run.
    #[serde(default)]
    pub scale: String,
    /// The git commit measured.
    #[serde(default)]
    pub git_commit: String,
}

/// The machine a run folder was made on (`env.json`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Machine {
    /// Operating system (`uname -s`).
    #[serde(default)]
    pub os: String,
    /// Kernel release.
    #[serde(default)]
    pub kernel: String,
    /// CPUs online.
    #[serde(default)]
    pub cpus: u64,
    /// Memory in KiB.
    #[serde(default)]
    pub mem_kib: u64,
    /// `rustc --version`.
    #[serde(default)]
    pub rustc: String,
}

/// One run folder, merged.
#[derive(Debug, Clone)]
pub struct MergedRun {
    /// Its run name in the merged directory: `<host>.<filesystem>`.
    pub label: String,
    /// Where it came from.
    pub folder: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Its machine.
    pub machine: Machine,
}
