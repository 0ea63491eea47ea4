//! Two sides compared benchmark by benchmark: both means, the ratio `B / A` with its bootstrap
//! interval (both sides' samples resampled, seeded), and a verdict against a noise threshold.
//!
//! A row is `slower` when B's mean exceeds A's by more than the threshold *and* the interval
//! lies wholly above 1 (the change is significant at the confidence level); `faster` likewise
//! below; otherwise `no_change`. A side read from a result folder keeps means only: its rows
//! have no interval and their verdict rests on the threshold alone (`basis: means_only`).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::analysis::stats::{bootstrap_ratio, fnv1a, CONFIDENCE, RESAMPLES, SEED};
use crate::model::bench_id::BenchKey;
use crate::model::side::{Side, SideBench, SideRun};

/// The default noise threshold: changes of 2% or less are noise, as criterion's default.
pub const DEFAULT_THRESHOLD: f64 = 0.02;

/// How to compare.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompareOptions {
    /// Relative change below which a difference is noise (0.02 = 2%).
    pub threshold: f64,
    /// Confidence level of the intervals (significance = 1 - confidence).
    pub confidence: f64,
    /// Bootstrap rounds per interval.
    pub resamples: usize,
    /// Base seed of the bootstrap (each row mixes in a hash of its identity).
    pub seed: u64,
    /// A regression larger than this (0.05 = 5%) fails the comparison (`--fail-above`).
    pub fail_above: Option<f64>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            threshold: DEFAULT_THRESHOLD,
            confidence: CONFIDENCE,
            resamples: RESAMPLES,
            seed: SEED,
            fail_above: None,
        }
    }
}

/// What a row says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// B is slower beyond the threshold (and significantly, when there are samples).
    Slower,
    /// B is faster beyond the threshold (and significantly, when there are samples).
    Faster,
    /// Within the noise threshold, or not significant.
    NoChange,
    /// Only B measured it.
    OnlyInB,
    /// Only A measured it.
    OnlyInA,
}

impl Verdict {
    /// The words a table shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::NoChange => "no change",
            Verdict::OnlyInB => "only in B",
            Verdict::OnlyInA => "only in A",
        }
    }
}

/// What a row's verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Both sides' samples: a bootstrap interval and the threshold.
    Bootstrap,
    /// One side has means only (a result folder): the threshold alone.
    MeansOnly,
    /// One side lacks the benchmark.
    Missing,
}

/// One benchmark of one run pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareRow {
    /// The run compared (`tmpfs`; `a → b` when two differently named runs are paired).
    pub run: String,
    /// The benchmark's full id (`group/function/value`), the same on both sides.
    pub benchmark: String,
    /// The profile the benchmark names, if any.
    pub profile: Option<String>,
    /// A's mean ns per iteration.
    pub mean_a_ns: Option<f64>,
    /// B's mean ns per iteration.
    pub mean_b_ns: Option<f64>,
    /// `mean_b_ns / mean_a_ns`: above 1, B is slower.
    pub ratio: Option<f64>,
    /// Lower bound of the ratio's bootstrap interval.
    pub ci_low: Option<f64>,
    /// Upper bound of the ratio's bootstrap interval.
    pub ci_high: Option<f64>,
    /// `(ratio - 1) × 100`.
    pub change_pct: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// What the verdict rests on.
    pub basis: Basis,
    /// Samples on A and on B.
    pub samples: (usize, usize),
    /// Slower by more than `--fail-above`.
    pub regressed_beyond_limit: bool,
}

/// A whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Side A as named.
    pub a: String,
    /// Side B as named.
    pub b: String,
    /// The options used.
    pub options: CompareOptions,
    /// Runs of A with no counterpart in B, and of B with none in A.
    pub unpaired_runs: Vec<String>,
    /// Every row, run by run, benchmarks sorted.
    pub rows: Vec<CompareRow>,
}

impl Comparison {
    /// How many rows have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == verdict).count()
    }

    /// The rows slower by more than `--fail-above`.
    pub fn regressions(&self) -> Vec<&CompareRow> {
        self.rows
            .iter()
            .filter(|r| r.regressed_beyond_limit)
            .collect()
    }
}

/// The run pairs: one run each are paired whatever their names; otherwise runs pair by name.
fn pairs<'s>(a: &'s Side, b: &'s Side) -> (Vec<(String, &'s SideRun, &'s SideRun)>, Vec<String>) {
    if let ([ra], [rb]) = (a.runs.as_slice(), b.runs.as_slice()) {
        let label = if ra.name == rb.name {
            ra.name.clone()
        } else {
            format!("{} → {}", ra.name, rb.name)
        };
        return (vec![(label, ra, rb)], Vec::new());
    }
    let mut out = Vec::new();
    let mut unpaired = Vec::new();
    for ra in &a.runs {
        match b.run(&ra.name) {
            Some(rb) => out.push((ra.name.clone(), ra, rb)),
            None => unpaired.push(format!("{} (only in A)", ra.name)),
        }
    }
    for rb in &b.runs {
        if a.run(&rb.name).is_none() {
            unpaired.push(format!("{} (only in B)", rb.name));
        }
    }
    (out, unpaired)
}

/// Compares every benchmark of every run pair of `a` and `b`.
pub fn compare(a: &Side, b: &Side, options: CompareOptions) -> Comparison {
    let (pairs, unpaired_runs) = pairs(a, b);
    let mut rows = Vec::new();
    for (label, ra, rb) in pairs {
        let keys: BTreeSet<&BenchKey> = ra.benches.keys().chain(rb.benches.keys()).collect();
        for key in keys {
            rows.push(row(
                &label,
                key,
                ra.benches.get(key),
                rb.benches.get(key),
                &options,
            ));
        }
    }
    Comparison {
        a: a.label.clone(),
        b: b.label.clone(),
        options,
        unpaired_runs,
        rows,
    }
}

fn row(
    run: &str,
    key: &BenchKey,
    a: Option<&SideBench>,
    b: Option<&SideBench>,
    options: &CompareOptions,
) -> CompareRow {
    let benchmark = key.full_id();
    let mut out = CompareRow {
        run: run.to_string(),
        benchmark: benchmark.clone(),
        profile: key.profile(),
        mean_a_ns: a.map(|x| x.mean_ns),
        mean_b_ns: b.map(|x| x.mean_ns),
        ratio: None,
        ci_low: None,
        ci_high: None,
        change_pct: None,
        verdict: Verdict::NoChange,
        basis: Basis::Missing,
        samples: (
            a.map_or(0, |x| x.per_iter_ns.len()),
            b.map_or(0, |x| x.per_iter_ns.len()),
        ),
        regressed_beyond_limit: false,
    };
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (None, _) => {
            out.verdict = Verdict::OnlyInB;
            return out;
        }
        (_, None) => {
            out.verdict = Verdict::OnlyInA;
            return out;
        }
    };
    let ratio = b.mean_ns / a.mean_ns;
    out.ratio = Some(ratio);
    out.change_pct = Some((ratio - 1.0) * 100.0);
    let seed = options.seed ^ fnv1a(&format!("compare/{run}/{benchmark}"));
    let ci = if a.per_iter_ns.is_empty() || b.per_iter_ns.is_empty() {
        None
    } else {
        bootstrap_ratio(
            &b.per_iter_ns,
            &a.per_iter_ns,
            options.resamples,
            options.confidence,
            seed,
        )
    };
    let t = options.threshold;
    let (slower, faster) = match ci {
        Some(ci) => {
            out.basis = Basis::Bootstrap;
            out.ci_low = Some(ci.low);
            out.ci_high = Some(ci.high);
            (
                ratio > 1.0 + t && ci.low > 1.0,
                ratio < 1.0 - t && ci.high < 1.0,
            )
        }
        None => {
            out.basis = Basis::MeansOnly;
            (ratio > 1.0 + t, ratio < 1.0 - t)
        }
    };
    out.verdict = if slower {
        Verdict::Slower
    } else if faster {
        Verdict::Faster
    } else {
        Verdict::NoChange
    };
    out.regressed_beyond_limit = slower && options.fail_above.is_some_and(|f| ratio > 1.0 + f);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::side::SideSource;

    fn side(label: &str, run: &str, samples: &[(&str, Vec<f64>)]) -> Side {
        let benches: BTreeMap<BenchKey, SideBench> = samples
            .iter()
            .map(|(id, xs)| {
                (
                    BenchKey::new("scenario/update", Some(id), None),
                    SideBench {
                        mean_ns: xs.iter().sum::<f64>() / xs.len() as f64,
                        mean_ci_ns: None,
                        per_iter_ns: xs.clone(),
                    },
                )
            })
            .collect();
        Side {
            label: label.into(),
            source: SideSource::Criterion,
            runs: vec![SideRun {
                name: run.into(),
                benches,
            }],
        }
    }

    fn noisy(base: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| base * (1.0 + 0.01 * ((i % 5) as f64 - 2.0)))
            .collect()
    }

    #[test]
    fn a_side_against_itself_is_no_change() {
        let a = side(
            "a",
            "tmpfs",
            &[("btree", noisy(100.0, 30)), ("lmdb", noisy(900.0, 30))],
        );
        let c = compare(
            &a,
            &a,
            CompareOptions {
                fail_above: Some(0.0),
                ..Default::default()
            },
        );
        assert_eq!(c.rows.len(), 2);
        assert!(c
            .rows
            .iter()
            .all(|r| r.verdict == Verdict::NoChange && r.ratio == Some(1.0)));
        assert!(c.regressions().is_empty());
    }

    #[test]
    fn a_clear_slowdown_is_slower_and_fails_the_limit() {
        let a = side("a", "tmpfs", &[("btree", noisy(100.0, 30))]);
        let b = side("b", "disk", &[("btree", noisy(120.0, 30))]);
        let c = compare(
            &a,
            &b,
            CompareOptions {
                fail_above: Some(0.05),
                ..Default::default()
            },
        );
        let r = &c.rows[0];
        assert_eq!(r.run, "tmpfs → disk");
        assert_eq!(r.verdict, Verdict::Slower);
        assert_eq!(r.basis, Basis::Bootstrap);
        assert!(r.ci_low.is_some_and(|l| l > 1.0));
        assert!(r.regressed_beyond_limit);
        let faster = compare(&b, &a, CompareOptions::default());
        assert_eq!(faster.rows[0].verdict, Verdict::Faster);
    }

    #[test]
    fn a_change_below_the_threshold_is_noise() {
        let a = side("a", "tmpfs", &[("btree", noisy(100.0, 30))]);
        let b = side("b", "tmpfs", &[("btree", noisy(101.0, 30))]);
        let c = compare(
            &a,
            &b,
            CompareOptions {
                fail_above: Some(0.0),
                ..Default::default()
            },
        );
        assert_eq!(c.rows[0].verdict, Verdict::NoChange);
        assert!(!c.rows[0].regressed_beyond_limit);
    }

    #[test]
    fn missing_benchmarks_say_which_side_has_them() {
        let a = side("a", "tmpfs", &[("btree", noisy(100.0, 5))]);
        let b = side("b", "tmpfs", &[("lmdb", noisy(100.0, 5))]);
        let c = compare(&a, &b, CompareOptions::default());
        let verdicts: Vec<Verdict> = c.rows.iter().map(|r| r.verdict).collect();
        assert_eq!(verdicts, vec![Verdict::OnlyInA, Verdict::OnlyInB]);
    }
}
