//! Run records (`triebench-runs/records/<run>/<command>.json`, the measuring crate's own
//! format, see `triebench-record`) into the model: each benchmark becomes a [`Measurement`]
//! under the key criterion would give it, so a recorded run reads like a criterion baseline.
//!
//! A record's run is its directory's name (a merged report renames the directory, not the
//! file's contents). Criterion computes its intervals by bootstrap; a record holds samples
//! only, so the mean's 95% interval here is the normal approximation from its standard error,
//! and the median's the order statistics `n/2 ± 0.98·√n`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use triebench_record::layout::{RECORDS_DIR, SIDECAR_DIR};
use triebench_record::{Benchmark, CpuIdleRecord, HostInfo, HostLoad, RunRecord, Versions};

use crate::error::ReportError;
use crate::model::bench_id::BenchKey;
use crate::model::results::{Estimate, Measurement, Throughput, ThroughputUnit};

/// One run's records, in file name order.
#[derive(Debug, Clone, Default)]
pub struct RecordedRun {
    /// The records and the files they came from.
    pub records: Vec<(PathBuf, RunRecord)>,
}

impl RecordedRun {
    /// Every benchmark of the run's records with its measurement; a later record (by file
    /// name) wins over an earlier one for the same benchmark.
    pub fn measurements(&self) -> BTreeMap<BenchKey, Measurement> {
        self.records
            .iter()
            .flat_map(|(_, r)| &r.benchmarks)
            .map(|b| (key(b), measurement(b)))
            .collect()
    }

    /// The versions the run's newest record names (by `taken_at`, the file name breaking a
    /// tie): what its latest numbers were measured with, whichever command took them (the
    /// headline, or `cargo bench`'s record beside criterion's baseline).
    pub fn versions(&self) -> Option<&Versions> {
        self.newest().map(|r| &r.environment.versions)
    }

    /// The machine the run's newest record was taken on.
    pub fn host(&self) -> Option<&HostInfo> {
        self.newest().map(|r| &r.environment.host)
    }

    /// How busy the machine was while the run's newest record that sampled it measured
    /// (`None` when no record did: older records, criterion's).
    pub fn host_load(&self) -> Option<&HostLoad> {
        self.by_age().rev().find_map(|(_, r)| r.host_load.as_ref())
    }

    /// What idle CPUs did while the run's newest record that says so measured.
    pub fn cpu_idle(&self) -> Option<&CpuIdleRecord> {
        self.by_age().rev().find_map(|(_, r)| r.cpu_idle.as_ref())
    }

    /// The newest record (by `taken_at`, the file name breaking a tie).
    fn newest(&self) -> Option<&RunRecord> {
        self.by_age().next_back().map(|(_, r)| r)
    }

    /// The records, oldest first.
    fn by_age(&self) -> std::vec::IntoIter<&(PathBuf, RunRecord)> {
        let mut v: Vec<&(PathBuf, RunRecord)> = self.records.iter().collect();
        v.sort_by(|(pa, a), (pb, b)| a.taken_at.cmp(&b.taken_at).then_with(|| pa.cmp(pb)));
        v.into_iter()
    }
}

/// Every run's records under `criterion_dir`, by run name; none when there is no records
/// directory. A record that cannot be read or breaks the format is an error naming it.
pub fn read_all(criterion_dir: &Path) -> Result<BTreeMap<String, RecordedRun>, ReportError> {
    let root = criterion_dir.join(SIDECAR_DIR).join(RECORDS_DIR);
    let mut out = BTreeMap::new();
    if !root.is_dir() {
        return Ok(out);
    }
    for run_dir in sorted_entries(&root)? {
        if !run_dir.is_dir() {
            continue;
        }
        let Some(run) = run_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
        else {
            continue;
        };
        let mut recorded = RecordedRun::default();
        for file in sorted_entries(&run_dir)? {
            if file.extension().is_some_and(|e| e == "json") {
                if let Some(record) = RunRecord::read(&file)? {
                    recorded.records.push((file, record));
                }
            }
        }
        if !recorded.records.is_empty() {
            out.insert(run, recorded);
        }
    }
    Ok(out)
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let entries = fs::read_dir(dir).map_err(|e| ReportError::File {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    Ok(paths)
}

/// The key criterion would give `b`: its group and function, no parameter.
pub fn key(b: &Benchmark) -> BenchKey {
    BenchKey {
        group: b.group.clone(),
        function: Some(b.function.clone()),
        value: None,
    }
}

/// 97.5th percentile of the standard normal, for 95% intervals.
const Z95: f64 = 1.959_963_985;

/// `b`'s measurement: per-iteration times, their mean and median with 95% intervals (see the
/// module doc), and its throughput.
pub fn measurement(b: &Benchmark) -> Measurement {
    let xs = b.per_iteration_ns();
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let se = (var / n).sqrt();
    let mut sorted = xs.clone();
    sorted.sort_by(f64::total_cmp);
    let at = |i: f64| {
        sorted
            .get((i.max(0.0) as usize).min(sorted.len().saturating_sub(1)))
            .copied()
            .unwrap_or(f64::NAN)
    };
    let half = Z95 / 2.0 * n.sqrt();
    let estimate = |point: f64, lower: f64, upper: f64| Estimate {
        point,
        lower,
        upper,
        confidence_level: 0.95,
    };
    Measurement {
        mean: estimate(mean, mean - Z95 * se, mean + Z95 * se),
        median: estimate(at((n - 1.0) / 2.0), at(n / 2.0 - half), at(n / 2.0 + half)),
        throughput: b
            .throughput
            .iter()
            .map(|t| Throughput {
                unit: match t.unit {
                    triebench_record::ThroughputUnit::Bytes => ThroughputUnit::Bytes,
                    triebench_record::ThroughputUnit::Elements => ThroughputUnit::Elements,
                    triebench_record::ThroughputUnit::Bits => ThroughputUnit::Bits,
                },
                per_iteration: t.per_iteration,
            })
            .collect(),
        per_iter_ns: xs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_record::{Sample, ThroughputUnit as Unit};

    #[test]
    fn a_benchmark_reads_as_criterion_would_have_measured_it() {
        let samples = [10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0, 28.0];
        let mut b = Benchmark::ns(
            "scenario/suite",
            "btree",
            Some("btree"),
            samples.iter().map(|&t| Sample::one(t)).collect(),
        );
        b.throughput = Some(triebench_record::Throughput {
            unit: Unit::Bytes,
            per_iteration: 8192,
        });
        let k = key(&b);
        assert_eq!(k.group, "scenario/suite");
        assert_eq!(k.function.as_deref(), Some("btree"));
        let m = measurement(&b);
        assert_eq!(m.per_iter_ns, samples);
        assert_eq!(m.throughput.len(), 1);
        assert_eq!(m.throughput[0].per_iteration, 8192);
        assert!((m.mean.point - 19.0).abs() < 1e-9);
        assert!(m.mean.lower < 19.0 && m.mean.upper > 19.0);
        assert!(m.median.lower <= m.median.point && m.median.point <= m.median.upper);
    }

    #[test]
    fn samples_of_several_iterations_are_times_per_iteration() {
        let b = Benchmark::ns(
            "floor",
            "sha512_8k",
            None,
            vec![Sample {
                iterations: 4,
                total: 100.0,
            }],
        );
        assert_eq!(measurement(&b).per_iter_ns, [25.0]);
    }
}
