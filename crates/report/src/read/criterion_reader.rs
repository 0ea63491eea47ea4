//! Reads criterion's output directory: which baselines were saved, which benchmarks each holds,
//! and each benchmark's estimates and samples; with the run records beside it
//! ([`read::run_records`](crate::read::run_records)), whose runs read as baselines too (a record wins
//! over a criterion directory of the same run and benchmark).
//!
//! Layout relied on (criterion 0.8; it is not a stable API, the tests pin it with captured
//! output in `fixtures/criterion/`): every benchmark has a directory (criterion sanitises the
//! names, so directory names are never parsed) holding one sub-directory per saved baseline
//! (`--save-baseline NAME`, plus criterion's own `base`/`new`), each with `benchmark.json`
//! (group_id, function_id, value_str, throughput), `estimates.json` (mean, median, ... with
//! confidence intervals) and `sample.json` (iters and total times per sample).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::ReportError;
use crate::model::bench_id::BenchKey;
use crate::model::results::{Estimate, Measurement, Throughput, ThroughputUnit};
use crate::read::run_records::{self, RecordedRun};
use triebench_record::{HostInfo, HostLoad, Versions};

/// Directories under the criterion dir that never hold benchmarks.
const SKIPPED_DIRS: [&str; 2] = ["report", crate::read::fs_info::SIDECAR_DIR];

/// How deep benchmark directories may nest (group/function/value/baseline plus slack).
const MAX_DEPTH: usize = 12;

/// An index of a criterion output directory.
#[derive(Debug, Clone)]
pub struct CriterionIndex {
    root: PathBuf,
    /// baseline name -> benchmark -> the baseline's directory for that benchmark.
    baselines: BTreeMap<String, BTreeMap<BenchKey, Source>>,
    recorded: BTreeMap<String, RecordedRun>,
}

/// Where one benchmark of one run comes from.
#[derive(Debug, Clone)]
enum Source {
    /// A criterion benchmark directory (`benchmark.json`, `estimates.json`, `sample.json`).
    Criterion(PathBuf),
    /// A run record's benchmark, already read.
    Record(Measurement),
}

impl Source {
    fn load(&self) -> Result<Measurement, ReportError> {
        match self {
            Source::Criterion(dir) => load_measurement(dir),
            Source::Record(m) => Ok(m.clone()),
        }
    }
}

#[derive(Deserialize)]
struct BenchmarkFile {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    #[serde(default)]
    throughput: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ConfidenceInterval {
    confidence_level: f64,
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Deserialize)]
struct EstimateFile {
    confidence_interval: ConfidenceInterval,
    point_estimate: f64,
}

#[derive(Deserialize)]
struct EstimatesFile {
    mean: EstimateFile,
    median: EstimateFile,
}

#[derive(Deserialize)]
struct SampleFile {
    iters: Vec<f64>,
    times: Vec<f64>,
}

impl From<EstimateFile> for Estimate {
    fn from(e: EstimateFile) -> Self {
        Estimate {
            point: e.point_estimate,
            lower: e.confidence_interval.lower_bound,
            upper: e.confidence_interval.upper_bound,
            confidence_level: e.confidence_interval.confidence_level,
        }
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ReportError> {
    let bad = |reason: String| ReportError::CriterionFile {
        path: path.to_path_buf(),
        reason,
    };
    let text = triebench_record::copy_tree::read_text(path).map_err(|e| bad(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| bad(e.to_string()))
}

/// Criterion's `Throughput` enum as serialised: `{"Bytes": 8192}`,
/// `{"ElementsAndBytes": {"elements": 10, "bytes": 640}}`, ...
fn parse_throughput(value: &serde_json::Value) -> Vec<Throughput> {
    let Some(map) = value.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (kind, amount) in map {
        let unit = match kind.as_str() {
            "Bytes" | "BytesDecimal" => Some(ThroughputUnit::Bytes),
            "Elements" => Some(ThroughputUnit::Elements),
            "Bits" => Some(ThroughputUnit::Bits),
            _ => None,
        };
        match (unit, amount.as_u64()) {
            (Some(unit), Some(per_iteration)) => out.push(Throughput {
                unit,
                per_iteration,
            }),
            _ => {
                for (sub, unit) in [
                    ("elements", ThroughputUnit::Elements),
                    ("bytes", ThroughputUnit::Bytes),
                ] {
                    if let Some(per_iteration) = amount.get(sub).and_then(|v| v.as_u64()) {
                        out.push(Throughput {
                            unit,
                            per_iteration,
                        });
                    }
                }
            }
        }
    }
    out
}

impl CriterionIndex {
    /// Indexes `root` (criterion's output directory).
    pub fn open(root: &Path) -> Result<Self, ReportError> {
        if !root.is_dir() {
            return Err(ReportError::CriterionDirMissing(root.to_path_buf()));
        }
        let mut index = CriterionIndex {
            root: root.to_path_buf(),
            baselines: BTreeMap::new(),
            recorded: run_records::read_all(root)?,
        };
        index.walk(root, 0)?;
        for (run, recorded) in &index.recorded {
            let benches = index.baselines.entry(run.clone()).or_default();
            for (key, m) in recorded.measurements() {
                benches.insert(key, Source::Record(m));
            }
        }
        Ok(index)
    }

    fn walk(&mut self, dir: &Path, depth: usize) -> Result<(), ReportError> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        let entries = fs::read_dir(dir).map_err(|e| ReportError::CriterionFile {
            path: dir.to_path_buf(),
            reason: e.to_string(),
        })?;
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
            .map(|e| e.path())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            let name = sub
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if (depth == 0 && SKIPPED_DIRS.contains(&name.as_str())) || name == "report" {
                continue;
            }
            let bench_file = sub.join("benchmark.json");
            if bench_file.is_file() {
                let b: BenchmarkFile = read_json(&bench_file)?;
                let key = BenchKey {
                    group: b.group_id,
                    function: b.function_id,
                    value: b.value_str,
                };
                self.baselines
                    .entry(name)
                    .or_default()
                    .entry(key)
                    .or_insert(Source::Criterion(sub));
            } else {
                self.walk(&sub, depth + 1)?;
            }
        }
        Ok(())
    }

    /// The versions run `run`'s records name, `None` for a run without records.
    pub fn versions(&self, run: &str) -> Option<&Versions> {
        self.recorded.get(run).and_then(RecordedRun::versions)
    }

    /// The machine run `run`'s newest record was taken on, `None` for a run without records.
    pub fn host(&self, run: &str) -> Option<&HostInfo> {
        self.recorded.get(run).and_then(RecordedRun::host)
    }

    /// What idle CPUs did while run `run` measured, as its records say.
    pub fn cpu_idle(&self, run: &str) -> Option<&triebench_record::CpuIdleRecord> {
        self.recorded.get(run).and_then(RecordedRun::cpu_idle)
    }

    /// How busy the machine was while run `run` measured, when its records sampled it.
    pub fn host_load(&self, run: &str) -> Option<&HostLoad> {
        self.recorded.get(run).and_then(RecordedRun::host_load)
    }

    /// The directory indexed.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every saved baseline name (criterion's own `new` and `base` included), sorted.
    pub fn baselines(&self) -> Vec<String> {
        self.baselines.keys().cloned().collect()
    }

    /// The benchmarks saved under `baseline`, sorted (empty for an unknown baseline).
    pub fn benchmarks(&self, baseline: &str) -> Vec<BenchKey> {
        self.baselines
            .get(baseline)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether `baseline` was saved.
    pub fn has_baseline(&self, baseline: &str) -> bool {
        self.baselines.contains_key(baseline)
    }

    /// Loads every benchmark of `baseline`.
    pub fn load_all(&self, baseline: &str) -> Result<BTreeMap<BenchKey, Measurement>, ReportError> {
        let mut out = BTreeMap::new();
        if let Some(benches) = self.baselines.get(baseline) {
            for (key, source) in benches {
                out.insert(key.clone(), source.load()?);
            }
        }
        Ok(out)
    }

    /// Loads one benchmark of `baseline` (`None` when it was not measured there).
    pub fn load(&self, baseline: &str, key: &BenchKey) -> Result<Option<Measurement>, ReportError> {
        match self.baselines.get(baseline).and_then(|m| m.get(key)) {
            Some(source) => source.load().map(Some),
            None => Ok(None),
        }
    }
}

/// Reads `benchmark.json`, `estimates.json` and `sample.json` from one baseline directory.
pub fn load_measurement(dir: &Path) -> Result<Measurement, ReportError> {
    let bench: BenchmarkFile = read_json(&dir.join("benchmark.json"))?;
    let estimates: EstimatesFile = read_json(&dir.join("estimates.json"))?;
    let sample_path = dir.join("sample.json");
    let sample: SampleFile = read_json(&sample_path)?;
    let bad = |reason: &str| ReportError::CriterionFile {
        path: sample_path.clone(),
        reason: reason.to_string(),
    };
    if sample.iters.len() != sample.times.len() {
        return Err(bad("`iters` and `times` differ in length"));
    }
    if sample.iters.is_empty() {
        return Err(bad("no samples"));
    }
    let per_iter_ns = sample
        .iters
        .iter()
        .zip(&sample.times)
        .map(|(&n, &t)| {
            if n > 0.0 && t.is_finite() && t >= 0.0 {
                Ok(t / n)
            } else {
                Err(bad("a sample has no iterations or an invalid time"))
            }
        })
        .collect::<Result<Vec<f64>, ReportError>>()?;
    Ok(Measurement {
        mean: estimates.mean.into(),
        median: estimates.median.into(),
        throughput: bench
            .throughput
            .as_ref()
            .map(parse_throughput)
            .unwrap_or_default(),
        per_iter_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughputs_of_every_shape_parse() {
        let t = |s: &str| parse_throughput(&serde_json::from_str(s).unwrap_or_default());
        assert_eq!(
            t(r#"{"Bytes":8192}"#),
            [Throughput {
                unit: ThroughputUnit::Bytes,
                per_iteration: 8192
            }]
        );
        assert_eq!(t(r#"{"Elements":3}"#)[0].unit, ThroughputUnit::Elements);
        assert_eq!(
            t(r#"{"ElementsAndBytes":{"elements":2,"bytes":64}}"#).len(),
            2
        );
        assert!(t("null").is_empty());
    }
}
