//! A run folder's vocabulary: what `triebench export-run` (and `triebench bench`) writes about a
//! run and its machine, and a run once merged into a multi-machine report. One set of types for
//! the writer and the reader, so the format is defined once.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The file that marks a directory as a run folder.
pub const MANIFEST: &str = "manifest.json";

/// The version of the run folder format [`Manifest::format`] records.
pub const FORMAT: u32 = 1;

/// What `manifest.json` says about a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// The run folder format ([`FORMAT`]).
    #[serde(default)]
    pub format: u32,
    /// The machine's host name.
    pub host: String,
    /// The run (filesystem) name on that machine, its criterion baseline name.
    pub filesystem: String,
    /// The scale of the run (`quick`, `standard`, `full`).
    #[serde(default)]
    pub scale: String,
    /// The git commit measured.
    #[serde(default)]
    pub git_commit: String,
    /// The day the folder was made (UTC, `YYYY-MM-DD`).
    #[serde(default)]
    pub date: String,
    /// The folder's criterion tree, relative to it (`criterion`).
    #[serde(default)]
    pub criterion: String,
}

/// The machine a run folder was made on (`env.json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Machine {
    /// Host name.
    #[serde(default)]
    pub hostname: String,
    /// Operating system (`uname -s`).
    #[serde(default)]
    pub os: String,
    /// Kernel release.
    #[serde(default)]
    pub kernel: String,
    /// Architecture (`uname -m`).
    #[serde(default)]
    pub arch: String,
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
