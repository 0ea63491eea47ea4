//! One side of a comparison or an export: the runs of a result folder, a run folder, a criterion
//! directory or one criterion baseline, each run's benchmarks with their mean and, where the
//! source keeps them, the raw per-iteration samples.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::bench_id::BenchKey;

/// What a side was read from, and so what it can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SideSource {
    /// Criterion's output (a criterion directory, a run folder's `criterion/`, or
    /// `criterion:NAME`): every sample, so intervals can be bootstrapped.
    Criterion,
    /// A result folder's `ratios.json`: each benchmark's mean only (no samples).
    ResultFolder,
}

/// One benchmark of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideBench {
    /// Mean nanoseconds per iteration (the mean of `per_iter_ns` when there are samples).
    pub mean_ns: f64,
    /// Criterion's interval of the mean (ns), when the source has it.
    pub mean_ci_ns: Option<(f64, f64)>,
    /// Per-iteration time of each sample (ns); empty for a result folder.
    pub per_iter_ns: Vec<f64>,
}

/// One run (filesystem, criterion baseline) of a side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideRun {
    /// The run's name (`tmpfs`, a `--save-baseline` name, `<host>.<fs>`).
    pub name: String,
    /// Its benchmarks by id.
    pub benches: BTreeMap<BenchKey, SideBench>,
}

/// Everything one side of `triebench compare` (or the input of `triebench export`) holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// How the user named it (the path or `criterion:NAME`).
    pub label: String,
    /// What it was read from.
    pub source: SideSource,
    /// Its runs, in the source's order.
    pub runs: Vec<SideRun>,
}

impl Side {
    /// The run called `name`, if the side has it.
    pub fn run(&self, name: &str) -> Option<&SideRun> {
        self.runs.iter().find(|r| r.name == name)
    }
}
