//! What a profile pays above its storage floor per commit in one run: `update`'s time per
//! single-key commit (`scenario/update` ÷ [`UPDATE_KEYS`]) minus the floor of such a commit
//! (`floor/commit/<profile>`: `update`'s recorded writes replayed straight on the store), with
//! its 95% interval.
//!
//! **Paired or not.** `triebench headline` takes the floor in rounds with `update` (a floor
//! block, then an `update` run, per round), so the two benchmarks have the same number of
//! samples and sample *i* of each comes from the same round (`docs/run-record.md`): the interval
//! is then a Student *t* interval on the per-sample differences `update`ᵢ/1000 − floorᵢ, which
//! cancels what a round shares (a noisy minute of the disk). When the counts differ (records
//! from before the rounds: 300 one-commit floor samples), the samples are compared unpaired:
//! Welch's interval on the difference of means, with the Welch–Satterthwaite degrees of
//! freedom. Pairing by index never makes the interval invalid, only narrower where rounds
//! share noise: with independent pairs the paired variance is the sum of the two variances.
//! Without two samples on each side the interval comes from the two means' own intervals
//! (half-widths added in quadrature).
//!
//! What the paired interval covers: the ten samples of a round share that round's conditions
//! (one floor block, one `update` run), so the interval sees the storage's drift between rounds
//! only as far as the rounds taken show it; a run of one round shows none, and its interval is
//! the dispersion within that round. More rounds (`--max-rounds`, `--budget`) widen it honestly.
//!
//! A floor bounds what it floors: an "above" whose point is below zero (and so any interval
//! wholly below zero) is not a figure but a failure of the method ([`AboveFloor::below_floor`]).

use triebench_record::vocabulary::UPDATE_KEYS;

use crate::analysis::stats::CONFIDENCE;
use crate::model::bench_id::{BenchKey, FLOOR_COMMIT_GROUP};
use crate::model::results::{Estimate, Measurement, ResultSet};

/// What one profile pays above its storage floor per commit in one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AboveFloor {
    /// The floor: mean time of one floor commit (ns).
    pub floor_ns: f64,
    /// `update`'s mean time per single-key commit (ns): `scenario/update` ÷ [`UPDATE_KEYS`].
    pub update_ns: f64,
    /// `update_ns − floor_ns` (ns per commit) with its 95% interval.
    pub above: Estimate,
    /// Whether the interval came from paired per-round differences (else Welch's, unpaired).
    pub paired: bool,
    /// Pairs when paired; else the smaller of the two benchmarks' sample counts.
    pub samples: usize,
}

impl AboveFloor {
    /// Whether `update` measured below its floor (the point below zero, so also any interval
    /// wholly below zero): the floor did not bound the measurement, and "above" is no figure.
    pub fn below_floor(&self) -> bool {
        self.above.point < 0.0 || self.above.upper < 0.0
    }
}

/// What `profile` pays above its storage floor per commit in `run`; `None` when the run lacks
/// either benchmark.
pub fn above_floor(results: &ResultSet, run: &str, profile: &str) -> Option<AboveFloor> {
    let floor = results.get(run, &BenchKey::new(FLOOR_COMMIT_GROUP, Some(profile), None))?;
    let update = results.get(run, &BenchKey::new("scenario/update", Some(profile), None))?;
    let keys = f64::from(UPDATE_KEYS);
    let f = floor.per_iter_ns.as_slice();
    let u: Vec<f64> = update.per_iter_ns.iter().map(|x| x / keys).collect();
    if f.len() >= 2 && f.len() == u.len() {
        let d: Vec<f64> = u.iter().zip(f).map(|(u, f)| u - f).collect();
        let (mean_d, var_d) = mean_var(&d);
        let half = t975(d.len() as f64 - 1.0) * (var_d / d.len() as f64).sqrt();
        return Some(AboveFloor {
            floor_ns: mean_var(f).0,
            update_ns: mean_var(&u).0,
            above: interval(mean_d, half),
            paired: true,
            samples: d.len(),
        });
    }
    if f.len() >= 2 && u.len() >= 2 {
        let ((mf, vf), (mu, vu)) = (mean_var(f), mean_var(&u));
        let (sf, su) = (vf / f.len() as f64, vu / u.len() as f64);
        let se = (sf + su).sqrt();
        let df = welch_df(sf, f.len(), su, u.len());
        return Some(AboveFloor {
            floor_ns: mf,
            update_ns: mu,
            above: interval(mu - mf, t975(df) * se),
            paired: false,
            samples: f.len().min(u.len()),
        });
    }
    let (fl, up) = (floor.mean, scaled(update, keys));
    let half = (half_width(&fl).powi(2) + half_width(&up).powi(2)).sqrt();
    Some(AboveFloor {
        floor_ns: fl.point,
        update_ns: up.point,
        above: interval(up.point - fl.point, half),
        paired: false,
        samples: f.len().min(u.len()),
    })
}

/// The mean and the sample variance (n − 1) of `xs` (variance 0 below two values).
fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() < 2 {
        0.0
    } else {
        xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    };
    (mean, var)
}

/// Welch–Satterthwaite degrees of freedom from the two squared standard errors.
fn welch_df(sf: f64, nf: usize, su: f64, nu: usize) -> f64 {
    let num = (sf + su).powi(2);
    let den = sf.powi(2) / (nf as f64 - 1.0) + su.powi(2) / (nu as f64 - 1.0);
    if den > 0.0 {
        num / den
    } else {
        (nf + nu) as f64 - 2.0
    }
}

/// `point ± half` as a 95% [`Estimate`].
fn interval(point: f64, half: f64) -> Estimate {
    Estimate {
        point,
        lower: point - half,
        upper: point + half,
        confidence_level: CONFIDENCE,
    }
}

/// The larger half-width of an estimate's interval.
fn half_width(e: &Estimate) -> f64 {
    (e.point - e.lower).max(e.upper - e.point).max(0.0)
}

/// A measurement's mean per iteration divided by `by`.
fn scaled(m: &Measurement, by: f64) -> Estimate {
    Estimate {
        point: m.mean.point / by,
        lower: m.mean.lower / by,
        upper: m.mean.upper / by,
        confidence_level: m.mean.confidence_level,
    }
}

/// Student's t 97.5th percentiles for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 97.5th percentile of Student's t with `df` degrees of freedom (two-sided 95%): the
/// table below 30 (a fractional `df` rounded down, which widens the interval), above it the
/// Cornish–Fisher expansion around the normal's 1.96 (within 0.001 there).
fn t975(df: f64) -> f64 {
    const Z: f64 = 1.959_963_985;
    if df.is_nan() || df < 1.0 {
        return T975[0];
    }
    if df < 30.0 {
        return T975[(df.floor() as usize).clamp(1, 30) - 1];
    }
    let (z3, z5, z7) = (Z.powi(3), Z.powi(5), Z.powi(7));
    Z + (z3 + Z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * Z) / (96.0 * df.powi(2))
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * Z) / (384.0 * df.powi(3))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::results::RunResults;

    fn measured(per_iter_ns: Vec<f64>) -> Measurement {
        let mean = per_iter_ns.iter().sum::<f64>() / per_iter_ns.len().max(1) as f64;
        let e = Estimate {
            point: mean,
            lower: mean * 0.9,
            upper: mean * 1.1,
            confidence_level: 0.95,
        };
        Measurement {
            mean: e,
            median: e,
            throughput: Vec::new(),
            per_iter_ns,
        }
    }

    /// A run `disk` holding `profile`'s floor (per commit) and update (per run) samples.
    fn results(profile: &str, floor: Vec<f64>, update_per_commit: Vec<f64>) -> ResultSet {
        let keys = f64::from(UPDATE_KEYS);
        let mut benches = BTreeMap::new();
        benches.insert(
            BenchKey::new(FLOOR_COMMIT_GROUP, Some(profile), None),
            measured(floor),
        );
        benches.insert(
            BenchKey::new("scenario/update", Some(profile), None),
            measured(update_per_commit.iter().map(|u| u * keys).collect()),
        );
        ResultSet {
            runs: vec![RunResults {
                name: "disk".into(),
                present: true,
                fs: None,
                cpu_idle: None,
                host: None,
                host_load: None,
                benches,
            }],
            available: Vec::new(),
        }
    }

    /// Rounds whose noise both benchmarks share: the paired interval sees through it.
    #[test]
    fn paired_samples_give_an_interval_on_the_per_round_differences() {
        // Round r's samples drift by 100 r ns on both sides; update is always 50 ns above.
        let floor: Vec<f64> = (0..20).map(|i| 1_000.0 + 100.0 * (i / 10) as f64).collect();
        let update: Vec<f64> = floor
            .iter()
            .enumerate()
            .map(|(i, f)| f + 50.0 + if i % 2 == 0 { 2.0 } else { -2.0 })
            .collect();
        let a = above_floor(&results("lmdb", floor, update), "disk", "lmdb").expect("both");
        assert!(a.paired);
        assert_eq!(a.samples, 20);
        assert!((a.above.point - 50.0).abs() < 1e-9, "{:?}", a.above);
        assert!((a.update_ns - a.floor_ns - 50.0).abs() < 1e-9);
        // sd of ±2 is ~2.05; t(19) = 2.093: half ~0.96 ns, far narrower than the drift.
        let half = a.above.upper - a.above.point;
        assert!(half > 0.5 && half < 1.5, "{:?}", a.above);
        assert!(!a.below_floor());
    }

    /// Counts that differ (an older record) are compared with Welch's interval.
    #[test]
    fn unpaired_samples_give_welchs_interval() {
        let floor: Vec<f64> = (0..300).map(|i| 900.0 + (i % 3) as f64 * 10.0).collect();
        let update: Vec<f64> = (0..10).map(|i| 1_000.0 + (i % 2) as f64 * 20.0).collect();
        let a = above_floor(&results("lmdb", floor, update), "disk", "lmdb").expect("both");
        assert!(!a.paired);
        assert_eq!(a.samples, 10);
        assert!((a.floor_ns - 910.0).abs() < 1e-9, "{}", a.floor_ns);
        assert!((a.update_ns - 1_010.0).abs() < 1e-9, "{}", a.update_ns);
        assert!((a.above.point - 100.0).abs() < 1e-9);
        // Update's standard error dominates: sd ~10.5 / sqrt(10) = 3.33, df ~9.2, t = 2.262.
        let half = a.above.upper - a.above.point;
        assert!((half - 2.262 * 3.333).abs() < 0.3, "{half}");
    }

    /// An update below its floor is flagged, whether the interval crosses zero or not.
    #[test]
    fn an_update_below_its_floor_is_a_failure_of_the_method() {
        let floor = vec![886.0, 890.0, 880.0, 884.0];
        let update = vec![707.0, 710.0, 705.0, 709.0];
        let a = above_floor(
            &results("sqlite-wal-full", floor, update),
            "disk",
            "sqlite-wal-full",
        )
        .expect("both");
        assert!(a.above.upper < 0.0, "{:?}", a.above);
        assert!(a.below_floor());
        // Below zero by a little, with an interval across zero: still no figure.
        let floor = vec![100.0, 200.0, 100.0, 200.0];
        let update = vec![190.0, 100.0, 140.0, 150.0];
        let a = above_floor(&results("lmdb", floor, update), "disk", "lmdb").expect("both");
        assert!(a.above.point < 0.0 && a.above.upper > 0.0, "{:?}", a.above);
        assert!(a.below_floor());
    }

    #[test]
    fn a_run_without_either_benchmark_has_none() {
        let r = results("lmdb", vec![1.0, 2.0], vec![3.0, 4.0]);
        assert!(above_floor(&r, "disk", "btree").is_none());
        assert!(above_floor(&r, "tmpfs", "lmdb").is_none());
    }

    #[test]
    fn t_percentiles_match_the_tables() {
        assert_eq!(t975(1.0), 12.706);
        assert_eq!(t975(9.7), 2.262);
        assert!((t975(40.0) - 2.021).abs() < 0.001, "{}", t975(40.0));
        assert!((t975(120.0) - 1.980).abs() < 0.001, "{}", t975(120.0));
    }
}
