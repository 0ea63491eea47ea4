//! `load.json`: what a `triebench load` run offered and measured (commit and read latency,
//! the c × r matrix, the saturation point), with its environment; and the names of the files a
//! load folder holds.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cpu_idle::CpuIdleRecord;
use crate::env::{HostInfo, Versions};
use crate::fs::FsInfo;

/// Version of the `load.json` layout.
pub const SCHEMA_VERSION: u32 = 1;
/// The summary file of a load folder.
pub const LOAD_FILE: &str = "load.json";
/// One row per second of the headline run.
pub const TIMESERIES_FILE: &str = "timeseries.csv";
/// The c × r matrix as markdown.
pub const MATRIX_FILE: &str = "matrix.md";
/// The rates a saturation search tried, with their verdicts, as markdown.
pub const SEARCH_FILE: &str = "search.md";
/// Where `scripts/bench-fs.sh` keeps load folders, under the criterion directory:
/// `<criterion-dir>/triebench-runs/load/<run>/<profile>/`.
pub const LOAD_RUNS_DIR: [&str; 2] = ["triebench-runs", "load"];

/// The whole of `load.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadFile {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// What was asked.
    pub config: LoadConfig,
    /// Where it ran.
    pub env: LoadEnv,
    /// Commits of the headline run (the single run; the last cell of a matrix; the step at the
    /// sustained rate of a search), latency from the intended start.
    pub commit: OpStats,
    /// Reads of the headline run.
    pub read: OpStats,
    /// The headline run's offered rate and reader count.
    pub headline: RunSummary,
    /// The saturation point, when `--saturate` searched for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturation: Option<Saturation>,
    /// Every run made, in order (matrix cells or search steps). A rate the search ran more than
    /// once appears once per run, each with its own `saturated` flag; [`LoadFile::search`] has
    /// the verdict on its pooled commits.
    pub runs: Vec<RunSummary>,
    /// The rates a `--saturate` search tried, in order, each judged over all its runs; empty for
    /// a matrix and in files from before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search: Vec<SearchedRate>,
}

/// One rate of a saturation search and its verdict over the pooled commits of its runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SearchedRate {
    /// Offered commits/s.
    pub rate: f64,
    /// Runs of this rate (more than one when a failing p99 rested on too few commits; see
    /// [`LoadConfig::rerun_below`]).
    pub runs: usize,
    /// The commits of those runs, pooled.
    pub commit: OpStats,
    /// Whether the rate held on the pooled commits.
    pub holds: bool,
}

/// What a load run was asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadConfig {
    /// Backend profile.
    pub backend: String,
    /// What a commit survives on that profile (`volatile`, `process-crash`, `power-loss`).
    pub durability: String,
    /// The store's directory (absent for `btree`).
    pub dir: Option<String>,
    /// Leaves preloaded.
    pub state_size: u64,
    /// Changes per commit.
    pub commit_size: usize,
    /// Smallest and largest value, bytes (sizes drawn log-uniformly between).
    pub value_bytes: [usize; 2],
    /// Weights of updates, inserts and deletes among a commit's changes.
    pub mix: [u32; 3],
    /// Reader threads asked (one entry per matrix row).
    pub readers: Vec<usize>,
    /// Rates asked, commits/s (one entry per matrix column; empty for a search).
    pub rates: Vec<f64>,
    /// Seconds per run (per step of a search).
    pub duration_s: f64,
    /// The p99 bound a run must hold, µs.
    pub p99_bound_us: u64,
    /// The share of the offered rate a run must achieve.
    pub min_fraction: f64,
    /// In a search, the commits a failing p99 had to rest on, and the runs of one rate at most:
    /// a rate that failed on its p99 alone over fewer commits ran again and was judged over
    /// all its runs. `None` in files from before searches did so (each rate ran once).
    #[serde(default)]
    pub rerun_below: Option<RerunRule>,
    /// Seed of keys and values.
    pub seed: u64,
    /// How long the (untimed) preload took, seconds.
    pub preload_s: f64,
}

/// When a search ran a rate again (see [`LoadConfig::rerun_below`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RerunRule {
    /// Commits a failing p99 had to rest on.
    pub min_commits: u64,
    /// Runs of one rate at most.
    pub max_runs: usize,
}

/// Where a load run ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadEnv {
    /// When the file was written (UTC, RFC 3339).
    pub generated_at: String,
    /// The machine.
    pub host: HostInfo,
    /// The store directory's filesystem (absent for `btree` without `--dir`).
    pub fs: Option<FsInfo>,
    /// Software versions.
    pub versions: Versions,
    /// The command line.
    pub command: String,
    /// What idle CPUs did while it ran; `None` in files from before it was recorded.
    #[serde(default)]
    pub cpu_idle: Option<CpuIdleRecord>,
    /// The emulated network to the managed server (`--net-rtt`), when the run had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<crate::net::NetRecord>,
}

/// One run: what was offered, what was achieved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Reader threads.
    pub readers: usize,
    /// Offered commits/s.
    pub rate: f64,
    /// Seconds it ran.
    pub elapsed_s: f64,
    /// Commits.
    pub commit: OpStats,
    /// Reads.
    pub read: OpStats,
    /// Commits due but never started.
    pub missed: u64,
    /// Achieved < the minimum share of the offered rate, or p99 over the bound.
    pub saturated: bool,
    /// Ended early by Ctrl-C.
    pub stopped: bool,
}

/// The highest rate that held.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Saturation {
    /// The rate that held, commits/s.
    pub commits_per_sec: f64,
    /// Commit p99 at that rate, µs.
    pub p99_us: u64,
    /// Commits/s actually achieved at that rate.
    pub achieved_per_sec: f64,
    /// Steps the search ran.
    pub steps: usize,
    /// Seconds the search took (without the preload).
    pub search_s: f64,
}

/// Summary of one operation kind over a run: how many, how fast, how long.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct OpStats {
    /// Operations completed.
    pub count: u64,
    /// Completed per second of the run.
    pub per_sec: f64,
    /// Median latency, µs.
    pub p50_us: u64,
    /// 99th percentile, µs.
    pub p99_us: u64,
    /// 99.9th percentile, µs.
    pub p999_us: u64,
    /// Longest, µs.
    pub max_us: u64,
}

impl OpStats {
    /// Whether these operations kept up with `offered` per second, to within `min_fraction`.
    pub fn achieves(&self, offered: f64, min_fraction: f64) -> bool {
        self.count > 0 && self.per_sec >= min_fraction * offered
    }

    /// Whether they kept up with `offered` with their p99 within `p99_bound`: what a load run
    /// (or a rate of the saturation search) must do to hold.
    pub fn holds(&self, offered: f64, p99_bound: Duration, min_fraction: f64) -> bool {
        self.achieves(offered, min_fraction) && u128::from(self.p99_us) <= p99_bound.as_micros()
    }
}

/// One row of `timeseries.csv`: second `t_s` of the run (the interval ending then).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SecondSample {
    /// End of the second, seconds since the run's start.
    pub t_s: u64,
    /// Commits completed in that second.
    pub commits: u64,
    /// Their 99th percentile latency from the intended start, µs.
    pub commit_p99_us: u64,
    /// Reads completed in that second.
    pub reads: u64,
    /// Their 99th percentile, µs.
    pub read_p99_us: u64,
    /// Resident memory (this process plus the backend's server), bytes.
    pub rss_bytes: u64,
    /// CPU over that second (same processes), percent of one core.
    pub cpu_pct: f64,
    /// Bytes the store occupies on disk.
    pub store_bytes: u64,
}
