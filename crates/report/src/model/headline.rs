//! The headline's samples taken within runs (`triebench headline`), and the criterion-format
//! files they are saved as, so that `report` reads them like any criterion baseline.
//!
//! Criterion needs at least ten full runs of a benchmark for its ten samples; `update` on a
//! PostgreSQL or uncached Redis store takes seconds, so the headline cost minutes per profile.
//! A scenario that repeats a step (`update`: 1000 single-key commits, 1000 reads) gives ten
//! samples from one run instead: its repeated laps are dealt round-robin into
//! [`GROUPS`] groups (lap *i* of a kind goes to group *i* mod 10, so each group spans the whole
//! run and the trie's growth), and sample *g* is the run's other time plus ten times group *g*.
//! Every sample estimates the run's wall time; their mean is exactly the run's wall time, and
//! their spread is the spread of the repeated steps scaled to a whole run (the "random groups"
//! variance estimator). A scenario without such a step gives one sample per run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use triebench_workloads::{Lap, Step};

use crate::model::phases::save_json;
use crate::IoLabError;

/// Groups a run's repeated steps are dealt into, and so samples per run: criterion's minimum.
pub const GROUPS: usize = 10;

/// The samples (ns) one run of a scenario gives: [`GROUPS`] when some kind of step repeats at
/// least that often, else one (the run's wall time).
pub fn run_samples(wall: Duration, laps: &[Lap]) -> Vec<f64> {
    let mut by_step: BTreeMap<Step, Vec<f64>> = BTreeMap::new();
    for lap in laps {
        by_step
            .entry(lap.step)
            .or_default()
            .push(lap.elapsed.as_nanos() as f64);
    }
    let repeated: Vec<&Vec<f64>> = by_step.values().filter(|v| v.len() >= GROUPS).collect();
    let wall = wall.as_nanos() as f64;
    if repeated.is_empty() {
        return vec![wall];
    }
    let repeated_ns: f64 = repeated.iter().flat_map(|v| v.iter()).sum();
    let other = (wall - repeated_ns).max(0.0);
    let mut groups = [0.0f64; GROUPS];
    for laps in repeated {
        for (i, ns) in laps.iter().enumerate() {
            groups[i % GROUPS] += ns;
        }
    }
    groups.iter().map(|g| other + GROUPS as f64 * g).collect()
}

/// Per-sample sums of several scenarios' samples (the suite): sample *j* of the suite is the sum
/// of sample *j* of each; all must have the same number of samples.
pub fn summed(samples: &[&[f64]]) -> Vec<f64> {
    let n = samples.iter().map(|s| s.len()).min().unwrap_or(0);
    (0..n).map(|j| samples.iter().map(|s| s[j]).sum()).collect()
}

#[derive(Serialize)]
struct BenchmarkFile<'a> {
    group_id: &'a str,
    function_id: &'a str,
    value_str: Option<&'a str>,
    throughput: Option<Throughput>,
    full_id: String,
    directory_name: String,
    title: String,
}

/// Criterion's `Throughput` as `benchmark.json` holds it: `{"Bytes": 8192}`.
#[derive(Serialize)]
enum Throughput {
    Bytes(u64),
}

#[derive(Serialize)]
struct Interval {
    confidence_level: f64,
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Serialize)]
struct Estimate {
    confidence_interval: Interval,
    point_estimate: f64,
    standard_error: f64,
}

#[derive(Serialize)]
struct EstimatesFile {
    mean: Estimate,
    median: Estimate,
}

#[derive(Serialize)]
struct SampleFile<'a> {
    sampling_mode: &'static str,
    iters: Vec<f64>,
    times: &'a [f64],
}

/// 97.5th percentile of the standard normal, for 95% intervals.
const Z95: f64 = 1.959_963_985;

/// Mean and median of `xs` (non-empty) with normal-approximation 95% intervals: the mean's from
/// its standard error, the median's from the order statistics `n/2 ± 0.98·√n`.
fn estimates(xs: &[f64]) -> EstimatesFile {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let se = (var / n).sqrt();
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |i: f64| sorted[(i.max(0.0) as usize).min(sorted.len() - 1)];
    let median = at((n - 1.0) / 2.0);
    let half = Z95 / 2.0 * n.sqrt();
    let interval = |low: f64, high: f64| Interval {
        confidence_level: 0.95,
        lower_bound: low,
        upper_bound: high,
    };
    EstimatesFile {
        mean: Estimate {
            confidence_interval: interval(mean - Z95 * se, mean + Z95 * se),
            point_estimate: mean,
            standard_error: se,
        },
        median: Estimate {
            confidence_interval: interval(at(n / 2.0 - half), at(n / 2.0 + half)),
            point_estimate: median,
            standard_error: se,
        },
    }
}

/// One benchmark's samples as a criterion baseline would hold them.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// Criterion group id, e.g. `scenario/suite`.
    pub group: String,
    /// Criterion function id: the profile.
    pub function: String,
    /// Per-iteration times (ns), one per sample.
    pub samples: Vec<f64>,
    /// Bytes one iteration processes, for a rate beside the time (`floor/sha512_8k`).
    pub bytes_per_iteration: Option<u64>,
}

impl Baseline {
    /// The mean of the samples (ns) and the half width of its normal-approximation 95%
    /// interval, as saved in `estimates.json`.
    pub fn mean_and_half_width(&self) -> Option<(f64, f64)> {
        if self.samples.is_empty() {
            return None;
        }
        let mean = estimates(&self.samples).mean;
        Some((mean.point_estimate, Z95 * mean.standard_error))
    }

    /// The directory criterion itself would use: `<dir>/<group>/<function>/<run>` with `/`
    /// and `:` made `_`.
    pub fn dir(&self, criterion_dir: &Path, run: &str) -> PathBuf {
        let clean = |s: &str| s.replace(['/', ':', '\\'], "_");
        criterion_dir
            .join(clean(&self.group))
            .join(clean(&self.function))
            .join(run)
    }

    /// Writes `benchmark.json`, `estimates.json` and `sample.json` as baseline `run`.
    pub fn save(&self, criterion_dir: &Path, run: &str) -> Result<PathBuf, IoLabError> {
        let dir = self.dir(criterion_dir, run);
        if self.samples.is_empty() {
            return Err(IoLabError::File {
                path: dir,
                reason: "no samples to save".to_string(),
            });
        }
        let full_id = format!("{}/{}", self.group, self.function);
        let directory_name = dir
            .strip_prefix(criterion_dir)
            .ok()
            .and_then(|p| p.parent())
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        save_json(
            &BenchmarkFile {
                group_id: &self.group,
                function_id: &self.function,
                value_str: None,
                throughput: self.bytes_per_iteration.map(Throughput::Bytes),
                title: full_id.clone(),
                full_id,
                directory_name,
            },
            &dir.join("benchmark.json"),
        )?;
        save_json(&estimates(&self.samples), &dir.join("estimates.json"))?;
        save_json(
            &SampleFile {
                sampling_mode: "Flat",
                iters: vec![1.0; self.samples.len()],
                times: &self.samples,
            },
            &dir.join("sample.json"),
        )?;
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lap(step: Step, micros: u64) -> Lap {
        Lap {
            step,
            elapsed: Duration::from_micros(micros),
        }
    }

    #[test]
    fn a_run_with_repeated_steps_gives_ten_samples_whose_mean_is_its_wall_time() {
        let one = Step::Commit { changes: 1 };
        // 20 commits growing in cost, 5 reads (too few to repeat), one batch commit.
        let mut laps: Vec<Lap> = (0..20).map(|i| lap(one, 100 + i)).collect();
        laps.extend((0..5).map(|_| lap(Step::Read, 7)));
        laps.push(lap(Step::Commit { changes: 100 }, 900));
        let repeated: u64 = (0..20).map(|i| 100 + i).sum();
        let wall = Duration::from_micros(repeated + 5 * 7 + 900 + 1000);
        let samples = run_samples(wall, &laps);
        assert_eq!(samples.len(), GROUPS);
        let mean = samples.iter().sum::<f64>() / samples.len() as f64;
        assert!((mean - wall.as_nanos() as f64).abs() < 1e-3, "{mean}");
        // Group g holds commits g and g+10: (100+g + 110+g) µs, times ten, plus the rest.
        let other = (5 * 7 + 900 + 1000) as f64 * 1e3;
        for (g, s) in samples.iter().enumerate() {
            let expect = other + 10.0 * (210.0 + 2.0 * g as f64) * 1e3;
            assert!((s - expect).abs() < 1e-3, "group {g}: {s} vs {expect}");
        }
    }

    #[test]
    fn a_run_without_repeated_steps_is_one_sample() {
        let laps = vec![lap(Step::Prune, 50), lap(Step::Read, 3)];
        let samples = run_samples(Duration::from_micros(400), &laps);
        assert_eq!(samples, vec![400_000.0]);
    }

    #[test]
    fn the_suite_sums_sample_by_sample() {
        assert_eq!(
            summed(&[&[1.0, 2.0], &[10.0, 20.0, 30.0]]),
            vec![11.0, 22.0]
        );
    }

    #[test]
    fn saved_baselines_read_back_as_criterion_measurements() {
        let dir = tempfile::tempdir().unwrap();
        let baseline = Baseline {
            group: "scenario/suite".to_string(),
            function: "btree".to_string(),
            samples: vec![10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0, 28.0],
            bytes_per_iteration: Some(8192),
        };
        let at = baseline.save(dir.path(), "tmpfs").unwrap();
        assert_eq!(at, dir.path().join("scenario_suite/btree/tmpfs"));
        let index = crate::read::criterion_reader::CriterionIndex::open(dir.path()).unwrap();
        let keys = index.benchmarks("tmpfs");
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].group, "scenario/suite");
        assert_eq!(keys[0].function.as_deref(), Some("btree"));
        let m = index.load("tmpfs", &keys[0]).unwrap().unwrap();
        assert_eq!(m.per_iter_ns, baseline.samples);
        assert_eq!(m.throughput.len(), 1);
        assert_eq!(m.throughput[0].per_iteration, 8192);
        assert!((m.mean.point - 19.0).abs() < 1e-9);
        assert!(m.mean.lower < 19.0 && m.mean.upper > 19.0);
        assert!(m.median.lower <= m.median.point && m.median.point <= m.median.upper);
    }
}
