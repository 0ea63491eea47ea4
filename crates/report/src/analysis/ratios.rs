//! Ratios with bootstrap confidence intervals: each benchmark's slowdown on every run versus the
//! baseline run, and each profile's overhead versus `btree` on the same run.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analysis::stats::{bootstrap_ratio, fnv1a, RatioCi, CONFIDENCE, SEED};
use crate::model::bench_id::{profile_durable, BenchKey, BenchKind, REFERENCE_PROFILE};
use crate::model::results::ResultSet;

/// What a ratio compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// A benchmark on `run` divided by the same benchmark on the baseline run.
    SlowdownVsBaseline,
    /// A scenario on `profile` divided by the same scenario on `btree`, both on `run`.
    OverheadVsBtree,
}

impl Comparison {
    /// The snake_case name used in `ratios.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            Comparison::SlowdownVsBaseline => "slowdown_vs_baseline",
            Comparison::OverheadVsBtree => "overhead_vs_btree",
        }
    }
}

/// Whether a ratio could be computed, and if not, what was missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Ratio and interval computed.
    Ok,
    /// The run (criterion baseline) does not exist.
    MissingRun,
    /// The run exists but did not measure this benchmark.
    MissingMeasurement,
    /// The reference (baseline run, or `btree` on this run) did not measure it.
    MissingReference,
}

impl Status {
    /// The snake_case name used in `ratios.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::MissingRun => "missing_run",
            Status::MissingMeasurement => "missing_measurement",
            Status::MissingReference => "missing_reference",
        }
    }
}

/// One ratio: a row of `ratios.csv` and an element of `rows` in `ratios.json`.
///
/// Times are mean nanoseconds per iteration (criterion's `times / iters` per sample, averaged);
/// `ratio = mean_ns / reference_mean_ns`; `[ci_low, ci_high]` is the percentile bootstrap
/// interval (both sample sets resampled). Absent values are `null` in JSON and empty in CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatioRow {
    /// What is compared.
    pub comparison: Comparison,
    /// The benchmark's full id (`group/function/value`).
    pub benchmark: String,
    /// Criterion group id.
    pub group: String,
    /// Criterion function id.
    pub function: Option<String>,
    /// Criterion parameter (`value_str`).
    pub value: Option<String>,
    /// The scenario name, for `scenario/*` groups.
    pub scenario: Option<String>,
    /// The profile, when the benchmark names one.
    pub profile: Option<String>,
    /// Whether that profile fsyncs each commit (`null`: no profile, or an unknown name).
    pub durable: Option<bool>,
    /// The run measured.
    pub run: String,
    /// The run of the reference measurement.
    pub reference_run: String,
    /// The profile of the reference measurement (`btree` for overheads).
    pub reference_profile: Option<String>,
    /// Mean ns per iteration of the measurement.
    pub mean_ns: Option<f64>,
    /// Mean ns per iteration of the reference.
    pub reference_mean_ns: Option<f64>,
    /// `mean_ns / reference_mean_ns`.
    pub ratio: Option<f64>,
    /// Lower bound of the bootstrap interval.
    pub ci_low: Option<f64>,
    /// Upper bound of the bootstrap interval.
    pub ci_high: Option<f64>,
    /// Number of criterion samples of the measurement.
    pub samples: Option<usize>,
    /// Number of criterion samples of the reference.
    pub reference_samples: Option<usize>,
    /// Whether the ratio was computed.
    pub status: Status,
}

/// All ratios of a report, with a lookup by (comparison, benchmark, run).
#[derive(Debug, Clone, Default)]
pub struct Ratios {
    /// The rows, in table order.
    pub rows: Vec<RatioRow>,
    index: HashMap<(Comparison, String, String), usize>,
}

impl Ratios {
    /// The row for `key` on `run`, if one was computed.
    pub fn get(&self, comparison: Comparison, key: &BenchKey, run: &str) -> Option<&RatioRow> {
        self.index
            .get(&(comparison, key.full_id(), run.to_string()))
            .and_then(|&i| self.rows.get(i))
    }
}

struct Job<'a> {
    row: usize,
    numerator: &'a [f64],
    denominator: &'a [f64],
    seed: u64,
}

fn new_row(
    results: &ResultSet,
    comparison: Comparison,
    key: &BenchKey,
    run: &str,
    reference_run: &str,
    reference_key: &BenchKey,
) -> RatioRow {
    let scenario = match key.kind() {
        BenchKind::Scenario { scenario, .. } => Some(scenario),
        _ => None,
    };
    let profile = key.profile();
    let present = results.runs.iter().any(|r| r.name == run && r.present);
    let m = results.get(run, key);
    let r = results.get(reference_run, reference_key);
    let status = if !present {
        Status::MissingRun
    } else if m.is_none() {
        Status::MissingMeasurement
    } else if r.is_none() {
        Status::MissingReference
    } else {
        Status::Ok
    };
    RatioRow {
        comparison,
        benchmark: key.full_id(),
        group: key.group.clone(),
        function: key.function.clone(),
        value: key.value.clone(),
        scenario,
        durable: profile.as_deref().and_then(profile_durable),
        profile,
        run: run.to_string(),
        reference_run: reference_run.to_string(),
        reference_profile: reference_key.profile(),
        mean_ns: m.map(|m| m.mean.point),
        reference_mean_ns: r.map(|r| r.mean.point),
        ratio: None,
        ci_low: None,
        ci_high: None,
        samples: m.map(|m| m.per_iter_ns.len()),
        reference_samples: r.map(|r| r.per_iter_ns.len()),
        status,
    }
}

/// Adds the row comparing `key` on `run` with `reference_key` on `reference_run`, and the
/// bootstrap job for it when both sides were measured.
#[allow(clippy::too_many_arguments)]
fn plan<'a>(
    results: &'a ResultSet,
    ratios: &mut Ratios,
    jobs: &mut Vec<Job<'a>>,
    comparison: Comparison,
    key: &BenchKey,
    run: &str,
    reference_run: &str,
    reference_key: &BenchKey,
) {
    let row = new_row(results, comparison, key, run, reference_run, reference_key);
    let idx = ratios.rows.len();
    if let (Status::Ok, Some(m), Some(r)) = (
        row.status,
        results.get(run, key),
        results.get(reference_run, reference_key),
    ) {
        let identity = format!(
            "{}|{}|{}|{}|{}",
            comparison.as_str(),
            key.full_id(),
            run,
            reference_run,
            reference_key.full_id()
        );
        jobs.push(Job {
            row: idx,
            numerator: &m.per_iter_ns,
            denominator: &r.per_iter_ns,
            seed: SEED ^ fnv1a(&identity),
        });
    }
    ratios
        .index
        .insert((comparison, key.full_id(), run.to_string()), idx);
    ratios.rows.push(row);
}

/// Computes every ratio of `results` with `resamples` bootstrap rounds per interval, using all
/// available cores. Deterministic: each interval's seed derives from [`SEED`] and its identity.
pub fn compute(results: &ResultSet, resamples: usize) -> Ratios {
    let runs = results.run_names();
    let Some(baseline) = runs.first().cloned() else {
        return Ratios::default();
    };
    let mut ratios = Ratios::default();
    let mut jobs: Vec<Job<'_>> = Vec::new();
    let mut keys = results.all_keys();
    // Every cell of the scenario tables gets a row, measured or not (missing ones say so).
    for scenario in results.scenario_names() {
        for profile in results.scenario_profiles() {
            keys.insert(BenchKey::new(
                &format!("scenario/{scenario}"),
                Some(&profile),
                None,
            ));
        }
    }
    for key in &keys {
        for run in runs.iter().skip(1) {
            plan(
                results,
                &mut ratios,
                &mut jobs,
                Comparison::SlowdownVsBaseline,
                key,
                run,
                &baseline,
                key,
            );
        }
    }
    for key in &keys {
        let BenchKind::Scenario { profile, .. } = key.kind() else {
            continue;
        };
        if profile == REFERENCE_PROFILE {
            continue;
        }
        let Some(reference) = key.with_profile(REFERENCE_PROFILE) else {
            continue;
        };
        for run in &runs {
            plan(
                results,
                &mut ratios,
                &mut jobs,
                Comparison::OverheadVsBtree,
                key,
                run,
                run,
                &reference,
            );
        }
    }
    for (row, ci) in run_jobs(&jobs, resamples) {
        if let (Some(r), Some(ci)) = (ratios.rows.get_mut(row), ci) {
            r.ratio = Some(ci.ratio);
            r.ci_low = Some(ci.low);
            r.ci_high = Some(ci.high);
        }
    }
    ratios
}

fn run_jobs(jobs: &[Job<'_>], resamples: usize) -> Vec<(usize, Option<RatioCi>)> {
    let one = |j: &Job<'_>| {
        (
            j.row,
            bootstrap_ratio(j.numerator, j.denominator, resamples, CONFIDENCE, j.seed),
        )
    };
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len().max(1));
    if threads <= 1 {
        return jobs.iter().map(one).collect();
    }
    let chunk = jobs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        let mut out = Vec::with_capacity(jobs.len());
        for (h, part) in handles.into_iter().zip(jobs.chunks(chunk)) {
            match h.join() {
                Ok(done) => out.extend(done),
                // A panicking worker cannot come from these pure computations; recompute inline.
                Err(_) => out.extend(part.iter().map(one)),
            }
        }
        out
    })
}
