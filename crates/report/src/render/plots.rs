//! The report's plots: the suite's slowdown per profile per run, and each run's time per
//! scenario per profile. Both log-scale dot-and-whisker charts (see [`super::chart`]).

use std::path::{Path, PathBuf};

use super::fmt;
use crate::analysis::ratios::{Comparison, Ratios};
use crate::error::ReportError;
use crate::model::bench_id::{profile_durable, BenchKey, SUITE};
use crate::model::naming::file_safe;
use crate::model::results::ResultSet;
use crate::render::chart::{chart_size, render, DotChart, DotSeries, Interval};

/// The marker appended to durable profiles in plots.
pub const DURABLE_MARK: &str = " [fsync]";

/// One plot written (both formats).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotFile {
    /// What it shows.
    pub title: String,
    /// The SVG file.
    pub svg: PathBuf,
    /// The PNG file.
    pub png: PathBuf,
    /// Pixel size (width, height) of both.
    pub size: (u32, u32),
}

/// A profile's name as plots show it (with [`DURABLE_MARK`] when it fsyncs every commit).
pub fn profile_label(profile: &str) -> String {
    if profile_durable(profile) == Some(true) {
        format!("{profile}{DURABLE_MARK}")
    } else {
        profile.to_string()
    }
}

fn durable_note() -> String {
    "[fsync] = durable: fsync per commit".to_string()
}

fn axis_ratio(v: f64) -> String {
    fmt::trim_zeros(&fmt::ratio(v))
}

fn axis_time(v: f64) -> String {
    fmt::trim_zeros(&fmt::time_ns(v))
}

/// The slowdown chart: `scenario` on every profile, each non-baseline run vs the baseline.
pub fn slowdown_chart(results: &ResultSet, ratios: &Ratios, scenario: &str) -> Option<DotChart> {
    let runs = results.run_names();
    let baseline = runs.first()?.clone();
    if runs.len() < 2 {
        return None;
    }
    let profiles = results.scenario_profiles();
    let series = runs[1..]
        .iter()
        .map(|run| DotSeries {
            name: run.clone(),
            points: profiles
                .iter()
                .map(|p| {
                    let key = BenchKey::new(&format!("scenario/{scenario}"), Some(p), None);
                    let row = ratios.get(Comparison::SlowdownVsBaseline, &key, run)?;
                    Some(Interval {
                        value: row.ratio?,
                        low: row.ci_low?,
                        high: row.ci_high?,
                    })
                })
                .collect(),
        })
        .collect();
    Some(DotChart {
        title: format!("scenario/{scenario}: slowdown vs {baseline} (95% CI)"),
        value_label: format!("mean time ÷ mean time on {baseline} (log scale)"),
        categories: profiles.iter().map(|p| profile_label(p)).collect(),
        series,
        legend_title: "filesystem (run)".to_string(),
        notes: vec![durable_note(), format!("line at 1× = same as {baseline}")],
        reference: Some(1.0),
        format: axis_ratio,
        point_label: Some(fmt::ratio),
    })
}

/// The time chart of `run`: every scenario on every profile.
pub fn time_chart(results: &ResultSet, run: &str) -> DotChart {
    let scenarios = results.scenario_names();
    let series = results
        .scenario_profiles()
        .iter()
        .map(|p| DotSeries {
            name: profile_label(p),
            points: scenarios
                .iter()
                .map(|s| {
                    let key = BenchKey::new(&format!("scenario/{s}"), Some(p), None);
                    let m = results.get(run, &key)?;
                    Some(Interval {
                        value: m.mean.point,
                        low: m.mean.lower,
                        high: m.mean.upper,
                    })
                })
                .collect(),
        })
        .collect();
    DotChart {
        title: format!("time per scenario on {run} (mean, 95% CI)"),
        value_label: "mean time per iteration (log scale)".to_string(),
        categories: scenarios,
        series,
        legend_title: "backend profile".to_string(),
        notes: vec![durable_note()],
        reference: None,
        format: axis_time,
        point_label: None,
    }
}

/// Writes every plot into `dir`.
pub fn write_all(
    results: &ResultSet,
    ratios: &Ratios,
    dir: &Path,
) -> Result<Vec<PlotFile>, ReportError> {
    let mut out = Vec::new();
    let scenarios = results.scenario_names();
    let headline = scenarios
        .iter()
        .find(|s| s.as_str() == SUITE)
        .or_else(|| scenarios.first());
    let mut charts: Vec<(DotChart, String)> = Vec::new();
    if let Some(chart) = headline.and_then(|s| slowdown_chart(results, ratios, s)) {
        charts.push((chart, "slowdown".to_string()));
    }
    if !scenarios.is_empty() {
        for run in results.runs.iter().filter(|r| r.present) {
            charts.push((
                time_chart(results, &run.name),
                format!("time-{}", file_safe(&run.name)),
            ));
        }
    }
    for (chart, stem) in charts {
        let (svg, png) = render(&chart, dir, &stem)?;
        out.push(PlotFile {
            title: chart.title.clone(),
            svg,
            png,
            size: chart_size(chart.categories.len(), chart.series.len()),
        });
    }
    Ok(out)
}
