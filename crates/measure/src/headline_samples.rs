//! The headline's samples taken within runs (`triebench headline`), which its run record holds
//! (one iteration per sample).
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
use std::time::Duration;

use triebench_record::Benchmark;
use triebench_workloads::{Lap, Step};

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

/// 97.5th percentile of the standard normal, for 95% intervals.
const Z95: f64 = 1.959_963_985;

/// The mean time per iteration of `benchmark`'s samples (ns) and the half width of its
/// normal-approximation 95% interval (from the samples' standard error), for progress lines;
/// `None` without samples.
pub fn mean_and_half_width(benchmark: &Benchmark) -> Option<(f64, f64)> {
    let xs = benchmark.per_iteration_ns();
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    Some((mean, Z95 * (var / n).sqrt()))
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
    fn the_mean_and_its_interval_come_from_the_per_iteration_times() {
        use triebench_record::Sample;
        let samples = (0..10)
            .map(|i| Sample {
                iterations: 2,
                total: 20.0 + 4.0 * i as f64,
            })
            .collect();
        let b = Benchmark::ns("scenario/suite", "btree", Some("btree"), samples);
        let Some((mean, half)) = mean_and_half_width(&b) else {
            panic!("samples given")
        };
        assert!((mean - 19.0).abs() < 1e-9, "{mean}");
        assert!(half > 0.0 && half < 19.0, "{half}");
        let empty = Benchmark::ns("floor", "x", None, Vec::new());
        assert_eq!(mean_and_half_width(&empty), None);
    }
}
