//! A run folder's format: what `triebench export-run` (and `triebench bench`) writes about a run
//! and its machine (`manifest.json`, `env.json`, the `criterion/` tree), for `report --runs` to
//! merge with folders from other machines. One set of types for the writer and the reader, so the
//! format is defined once.

use serde::{Deserialize, Serialize};

/// The file that marks a directory as a run folder.
pub const MANIFEST: &str = "manifest.json";

/// The folder holding a run folder's criterion tree (a mirror of the criterion directory).
pub const CRITERION: &str = "criterion";

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

impl Machine {
    /// This machine, from [`capture_host`](crate::host::capture_host)'s facts, under the host
    /// name `host` a run folder carries, with the compiler version `rustc` (`unknown` when
    /// empty).
    pub fn this_host(host: &str, rustc: &str) -> Machine {
        let facts = crate::host::capture_host();
        let ostype = std::fs::read_to_string("/proc/sys/kernel/ostype")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let or_unknown = |s: &str| {
            if s.is_empty() {
                "unknown".to_string()
            } else {
                s.to_string()
            }
        };
        Machine {
            hostname: host.to_string(),
            os: or_unknown(&ostype),
            kernel: or_unknown(&facts.kernel),
            arch: std::env::consts::ARCH.to_string(),
            cpus: facts.cores as u64,
            mem_kib: facts.ram_bytes.map_or(0, |b| b / 1024),
            rustc: or_unknown(rustc),
        }
    }
}
