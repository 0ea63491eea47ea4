//! The results model: runs (one per filesystem, i.e. one criterion baseline) × benchmarks, each
//! with criterion's estimates and the raw per-iteration samples.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::bench_id::{profile_rank, scenario_rank, BenchKey, BenchKind};
use crate::model::cpu_idle::CpuIdleRecord;
use crate::model::fs::FsInfo;
use triebench_record::{HostInfo, HostLoad};

/// A point estimate with its confidence interval, in nanoseconds per iteration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The point estimate.
    pub point: f64,
    /// Lower bound of the interval.
    pub lower: f64,
    /// Upper bound of the interval.
    pub upper: f64,
    /// The interval's confidence level (criterion uses 0.95).
    pub confidence_level: f64,
}

/// What one iteration processes, as declared with criterion's `Throughput`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThroughputUnit {
    /// Bytes (criterion's `Bytes` and `BytesDecimal`).
    Bytes,
    /// Elements (criterion's `Elements`).
    Elements,
    /// Bits (criterion's `Bits`).
    Bits,
}

/// An amount processed per iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throughput {
    /// The unit.
    pub unit: ThroughputUnit,
    /// How many units one iteration processes.
    pub per_iteration: u64,
}

impl Throughput {
    /// Units per second at `ns_per_iter` nanoseconds per iteration.
    pub fn per_second(&self, ns_per_iter: f64) -> f64 {
        self.per_iteration as f64 * 1e9 / ns_per_iter
    }
}

/// Criterion's record of one benchmark in one saved baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Mean time per iteration (ns) with criterion's bootstrap CI.
    pub mean: Estimate,
    /// Median time per iteration (ns) with criterion's bootstrap CI.
    pub median: Estimate,
    /// Declared throughputs (empty when the bench declared none).
    pub throughput: Vec<Throughput>,
    /// Per-iteration time of each sample in ns (`times[i] / iters[i]` of `sample.json`).
    pub per_iter_ns: Vec<f64>,
}

/// One run: a criterion baseline, i.e. the whole bench suite on one filesystem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    /// The baseline name (`--save-baseline NAME`).
    pub name: String,
    /// Whether criterion's output holds this baseline at all.
    pub present: bool,
    /// The filesystem the run used, from its `triebench-runs/NAME.json` sidecar.
    pub fs: Option<FsInfo>,
    /// What idle CPUs did during the run's headline (`triebench-runs/headline/NAME.json`);
    /// `None` for runs without a headline or from before it was recorded.
    #[serde(default)]
    pub cpu_idle: Option<CpuIdleRecord>,
    /// The machine the run's newest run record was taken on (`None`: criterion's runs).
    #[serde(default)]
    pub host: Option<HostInfo>,
    /// How busy the machine was while the run measured (`None`: not recorded, older records).
    #[serde(default)]
    pub host_load: Option<HostLoad>,
    /// Every benchmark measured in this run.
    pub benches: BTreeMap<BenchKey, Measurement>,
}

/// Everything a report is made of: the baseline run first, then the other requested runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultSet {
    /// The runs, baseline first, in the order requested; absent runs are kept (`present: false`).
    pub runs: Vec<RunResults>,
    /// Every baseline name criterion's output holds (for the Missing section).
    pub available: Vec<String>,
}

impl ResultSet {
    /// The baseline run.
    pub fn baseline(&self) -> Option<&RunResults> {
        self.runs.first()
    }

    /// Every benchmark measured in any run, sorted.
    pub fn all_keys(&self) -> BTreeSet<BenchKey> {
        self.runs
            .iter()
            .flat_map(|r| r.benches.keys().cloned())
            .collect()
    }

    /// The measurement of `key` in run `run`, if there is one.
    pub fn get(&self, run: &str, key: &BenchKey) -> Option<&Measurement> {
        self.runs
            .iter()
            .find(|r| r.name == run)
            .and_then(|r| r.benches.get(key))
    }

    /// The names of the runs, baseline first.
    pub fn run_names(&self) -> Vec<String> {
        self.runs.iter().map(|r| r.name.clone()).collect()
    }

    /// Every scenario measured in any run (the suite first, then Transact's order).
    pub fn scenario_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .all_keys()
            .iter()
            .filter_map(|k| match k.kind() {
                BenchKind::Scenario { scenario, .. } => Some(scenario),
                _ => None,
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        names.sort_by_key(|n| scenario_rank(n));
        names
    }

    /// Every profile measured in any scenario of any run (the rows of the scenario tables),
    /// in `Profile::ALL` order, unknown names last.
    pub fn scenario_profiles(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .all_keys()
            .iter()
            .filter_map(|k| match k.kind() {
                BenchKind::Scenario { profile, .. } => Some(profile),
                _ => None,
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        names.sort_by_key(|n| profile_rank(n));
        names
    }

    /// Every profile named by any benchmark of any run.
    pub fn all_profiles(&self) -> BTreeSet<String> {
        self.all_keys()
            .iter()
            .filter_map(BenchKey::profile)
            .collect()
    }

    /// The groups reported in per-group tables (everything but scenarios and floors), each with
    /// its benchmarks; `scale/*` first, then `kv/*`, then the rest, profiles in table order.
    pub fn other_groups(&self) -> Vec<(String, Vec<BenchKey>)> {
        let mut groups: BTreeMap<String, Vec<BenchKey>> = BTreeMap::new();
        for key in self.all_keys() {
            if matches!(
                key.kind(),
                BenchKind::Scenario { .. }
                    | BenchKind::Floor { .. }
                    | BenchKind::CommitFloor { .. }
            ) {
                continue;
            }
            groups.entry(key.group.clone()).or_default().push(key);
        }
        let mut out: Vec<(String, Vec<BenchKey>)> = groups.into_iter().collect();
        for (_, keys) in &mut out {
            keys.sort_by(|a, b| {
                a.function
                    .cmp(&b.function)
                    .then_with(|| compare_params(a.value.as_deref(), b.value.as_deref()))
            });
        }
        out.sort_by_key(|(group, keys)| {
            let family = match keys.first().map(BenchKey::kind) {
                Some(BenchKind::Profiled { family, kind, .. }) => {
                    (usize::from(family != "scale"), kind)
                }
                _ => (2, group.clone()),
            };
            let profile = keys
                .first()
                .and_then(BenchKey::profile)
                .map(|p| profile_rank(&p))
                .unwrap_or_default();
            (family, profile, group.clone())
        });
        out
    }
}

/// Orders parameters numerically when both are numbers, else as text.
fn compare_params(a: Option<&str>, b: Option<&str>) -> std::cmp::Ordering {
    match (
        a.and_then(|x| x.parse::<f64>().ok()),
        b.and_then(|x| x.parse::<f64>().ok()),
    ) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => a.cmp(&b),
    }
}
