//! A [`Side`] in the JSON formats CI dashboards read, one entry per run and benchmark, named
//! `<run>/<benchmark id>` (e.g. `tmpfs/scenario/update/btree`), which stays the same from run to
//! run as long as the run (filesystem) names do:
//!
//! - github-action-benchmark's `customSmallerIsBetter`: `[{"name", "unit", "value", "range"?,
//!   "extra"?}]`, the mean in `ns/iter`, `range` `± half the mean's interval` when criterion
//!   measured it;
//! - Bencher Metric Format: `{"<name>": {"latency": {"value", "lower_value"?, "upper_value"?}}}`,
//!   nanoseconds, the bounds being criterion's interval of the mean.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::side::{Side, SideBench};
use crate::render::fmt::sig3;

/// The dashboards a side exports to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DashboardFormat {
    /// github-action-benchmark, `tool: customSmallerIsBetter`.
    GithubActionBenchmark,
    /// Bencher Metric Format (`bencher run --adapter json`).
    Bencher,
}

/// One entry of github-action-benchmark's `customSmallerIsBetter` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GithubEntry {
    /// `<run>/<benchmark id>`.
    pub name: String,
    /// Always `ns/iter`.
    pub unit: &'static str,
    /// Mean nanoseconds per iteration.
    pub value: f64,
    /// `± x`: half the width of the mean's interval, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// The run, profile and sample count (the chart's tooltip).
    pub extra: String,
}

/// One metric of the Bencher Metric Format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BencherMetric {
    /// Mean nanoseconds per iteration.
    pub value: f64,
    /// Lower bound of the mean's interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_value: Option<f64>,
    /// Upper bound of the mean's interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_value: Option<f64>,
}

fn entries(side: &Side) -> impl Iterator<Item = (String, Option<String>, &SideBench)> {
    side.runs.iter().flat_map(|run| {
        run.benches.iter().map(move |(key, bench)| {
            (
                format!("{}/{}", run.name, key.full_id()),
                key.profile(),
                bench,
            )
        })
    })
}

/// github-action-benchmark's `customSmallerIsBetter` entries of `side`.
pub fn github_entries(side: &Side) -> Vec<GithubEntry> {
    entries(side)
        .map(|(name, profile, b)| {
            let run = name.split('/').next().unwrap_or_default().to_string();
            let mut extra = format!("run: {run}");
            if let Some(p) = profile {
                extra.push_str(&format!("\nprofile: {p}"));
            }
            if !b.per_iter_ns.is_empty() {
                extra.push_str(&format!("\nsamples: {}", b.per_iter_ns.len()));
            }
            GithubEntry {
                name,
                unit: "ns/iter",
                value: b.mean_ns,
                range: b
                    .mean_ci_ns
                    .map(|(lo, hi)| format!("± {}", sig3((hi - lo) / 2.0))),
                extra,
            }
        })
        .collect()
}

/// The Bencher Metric Format of `side`: benchmark name → `{"latency": metric}`.
pub fn bencher_metrics(side: &Side) -> BTreeMap<String, BTreeMap<&'static str, BencherMetric>> {
    entries(side)
        .map(|(name, _, b)| {
            let metric = BencherMetric {
                value: b.mean_ns,
                lower_value: b.mean_ci_ns.map(|(lo, _)| lo),
                upper_value: b.mean_ci_ns.map(|(_, hi)| hi),
            };
            (name, BTreeMap::from([("latency", metric)]))
        })
        .collect()
}

/// `side` as `format`'s JSON text (pretty, ending in a newline).
pub fn to_json(side: &Side, format: DashboardFormat) -> Result<String, serde_json::Error> {
    let text = match format {
        DashboardFormat::GithubActionBenchmark => {
            serde_json::to_string_pretty(&github_entries(side))?
        }
        DashboardFormat::Bencher => serde_json::to_string_pretty(&bencher_metrics(side))?,
    };
    Ok(text + "\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_side_reader_reads_the_ratios_layout_the_report_writes() {
        assert_eq!(
            crate::read::side::RATIOS_SCHEMA_VERSION,
            crate::render::ratio_files::SCHEMA_VERSION
        );
    }
}
