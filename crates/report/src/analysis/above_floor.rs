//! What a profile's `update` commit costs above its own storage floor: `scenario/update` per
//! single-key commit (÷ [`UPDATE_KEYS`]) minus `floor/commit/<profile>` per commit, with a
//! Welch 95% interval of that difference (the two sample sets independent).

use triebench_record::vocabulary::UPDATE_KEYS;

use crate::model::bench_id::{BenchKey, FLOOR_COMMIT_GROUP};
use crate::model::results::{Estimate, ResultSet};

/// A profile's cost above its storage floor on one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AboveFloor {
    /// The floor: one commit's writes straight on the store (ns).
    pub floor_ns: f64,
    /// `update`'s time per single-key commit (ns).
    pub update_ns: f64,
    /// `update_ns - floor_ns` with its 95% interval.
    pub above: Estimate,
    /// Whether floor and update were taken as pairs (interleaved rounds); `false` here.
    pub paired: bool,
    /// Samples behind the interval (the fewer of the two sides').
    pub samples: usize,
}

/// `profile`'s above-floor on `run`, `None` when either side was not measured (or has no
/// samples).
pub fn above_floor(results: &ResultSet, run: &str, profile: &str) -> Option<AboveFloor> {
    let update = results.get(run, &BenchKey::new("scenario/update", Some(profile), None))?;
    let floor = results.get(run, &BenchKey::new(FLOOR_COMMIT_GROUP, Some(profile), None))?;
    let k = f64::from(UPDATE_KEYS);
    let u: Vec<f64> = update.per_iter_ns.iter().map(|x| x / k).collect();
    let (mu, vu) = mean_var(&u)?;
    let (mf, vf) = mean_var(&floor.per_iter_ns)?;
    let (nu, nf) = (u.len() as f64, floor.per_iter_ns.len() as f64);
    let (su, sf) = (vu / nu, vf / nf);
    let se = (su + sf).sqrt();
    // Welch–Satterthwaite degrees of freedom; one sample on a side gives no variance there.
    let df_den = if nu > 1.0 { su * su / (nu - 1.0) } else { 0.0 }
        + if nf > 1.0 { sf * sf / (nf - 1.0) } else { 0.0 };
    let df = if df_den > 0.0 {
        (su + sf).powi(2) / df_den
    } else {
        1.0
    };
    let half = t975(df) * se;
    let point = mu - mf;
    Some(AboveFloor {
        floor_ns: mf,
        update_ns: mu,
        above: Estimate {
            point,
            lower: point - half,
            upper: point + half,
            confidence_level: 0.95,
        },
        paired: false,
        samples: u.len().min(floor.per_iter_ns.len()),
    })
}

/// Mean and sample variance (0 for one sample), `None` when empty.
fn mean_var(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = if xs.len() > 1 {
        xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    Some((m, v))
}

/// Student's t 97.5% quantile at `df` degrees of freedom (Cornish–Fisher expansion around the
/// normal's; within 1% from 3 degrees of freedom up).
fn t975(df: f64) -> f64 {
    let z: f64 = 1.959_963_985;
    let df = df.max(1.0);
    z + (z.powi(3) + z) / (4.0 * df)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * df * df)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::results::{Measurement, RunResults};

    fn m(xs: &[f64]) -> Measurement {
        let e = Estimate {
            point: 0.0,
            lower: 0.0,
            upper: 0.0,
            confidence_level: 0.95,
        };
        Measurement {
            mean: e,
            median: e,
            throughput: vec![],
            per_iter_ns: xs.to_vec(),
        }
    }

    #[test]
    fn above_is_update_per_commit_less_the_floor_with_an_interval_around_it() {
        let k = f64::from(UPDATE_KEYS);
        let run = RunResults {
            name: "tmpfs".into(),
            present: true,
            fs: None,
            cpu_idle: None,
            host: None,
            host_load: None,
            benches: [
                (
                    BenchKey::new("scenario/update", Some("lmdb"), None),
                    m(&[100.0 * k, 110.0 * k, 90.0 * k, 100.0 * k]),
                ),
                (
                    BenchKey::new(FLOOR_COMMIT_GROUP, Some("lmdb"), None),
                    m(&[40.0, 41.0, 39.0, 40.0]),
                ),
            ]
            .into_iter()
            .collect(),
        };
        let results = ResultSet {
            runs: vec![run],
            available: vec![],
        };
        let a = above_floor(&results, "tmpfs", "lmdb").unwrap();
        assert!((a.update_ns - 100.0).abs() < 1e-9);
        assert!((a.floor_ns - 40.0).abs() < 1e-9);
        assert!((a.above.point - 60.0).abs() < 1e-9);
        assert!(a.above.lower < 60.0 && a.above.upper > 60.0);
        assert_eq!(a.samples, 4);
        assert!(above_floor(&results, "tmpfs", "btree").is_none());
    }
}
