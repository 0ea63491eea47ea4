//! The report's "Sustained commits/s" section and plot, when `scripts/bench-fs.sh` ran the
//! load generator's saturation search (`TRIEBENCH_LOAD=1`): per profile and filesystem, the
//! highest commit rate that held the p99 bound while readers ran.

use std::fmt::Write as _;
use std::path::Path;

use triebench_record::vocabulary::PROFILES;

use crate::error::ReportError;
use crate::model::bench_id::profile_durable;
use crate::model::cpu_idle::CpuIdleRecord;
use crate::read::load_runs::LoadEntry;
use crate::render::chart::{chart_size, render as render_chart, DotChart, DotSeries, Interval};
use crate::render::fmt;
use crate::render::load_files::{latency, rate};
use crate::render::plots::{profile_label, PlotFile};
use crate::render::table::{esc, header, row};

/// The plot's file stem.
pub const STEM: &str = "sustained";

fn runs(entries: &[LoadEntry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        if !out.contains(&e.run) {
            out.push(e.run.clone());
        }
    }
    out
}

fn profiles(entries: &[LoadEntry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        if !out.contains(&e.profile) {
            out.push(e.profile.clone());
        }
    }
    let pos = |p: &String| {
        PROFILES
            .iter()
            .position(|x| x.name == p)
            .unwrap_or(usize::MAX)
    };
    out.sort_by_key(pos);
    out
}

fn find<'a>(entries: &'a [LoadEntry], run: &str, profile: &str) -> Option<&'a LoadEntry> {
    entries
        .iter()
        .find(|e| e.run == run && e.profile == profile)
}

/// Writes `sustained.{svg,png}` into `dir` (nothing when no load was run).
pub fn write_plot(entries: &[LoadEntry], dir: &Path) -> Result<Option<PlotFile>, ReportError> {
    let sat: Vec<&LoadEntry> = entries
        .iter()
        .filter(|e| e.file.saturation.is_some())
        .collect();
    if sat.is_empty() {
        return Ok(None);
    }
    let profiles = profiles(entries);
    let series = runs(entries)
        .iter()
        .map(|run| DotSeries {
            name: run.clone(),
            points: profiles
                .iter()
                .map(|p| {
                    let s = find(entries, run, p)?.file.saturation?;
                    let v = s.commits_per_sec;
                    Some(Interval {
                        value: v,
                        low: v,
                        high: v,
                    })
                })
                .collect(),
        })
        .collect();
    let chart = DotChart {
        title: "sustained commits/s (saturation search, p99 bound)".to_string(),
        value_label: "commits per second held (log scale)".to_string(),
        categories: profiles.iter().map(|p| profile_label(p)).collect(),
        series,
        legend_title: "filesystem (run)".to_string(),
        notes: vec!["[fsync] = durable: fsync per commit".to_string()],
        reference: None,
        format: |v| fmt::trim_zeros(&fmt::sig3(v)),
        point_label: Some(|v| format!("{}/s", fmt::trim_zeros(&fmt::sig3(v)))),
    };
    let (svg, png) = render_chart(&chart, dir, STEM)?;
    Ok(Some(PlotFile {
        title: chart.title.clone(),
        svg,
        png,
        size: chart_size(chart.categories.len(), chart.series.len()),
    }))
}

/// The section (nothing when no load was run).
pub fn render(out: &mut String, entries: &[LoadEntry]) {
    if entries.is_empty() {
        return;
    }
    let runs = runs(entries);
    let Some(first) = entries.first() else {
        return;
    };
    let c = &first.file.config;
    out.push_str("## Sustained commits/s (load generator)\n\n");
    let _ = writeln!(
        out,
        "`triebench load --saturate` per profile and filesystem: an open-loop writer \
         ({} changes per commit over {} preloaded leaves, values {}–{} B) with {} reader \
         thread(s) reading random keys at the latest root. The highest offered rate that \
         still achieved {:.0}% of itself with commit p99 ≤ {} (latency from each commit's \
         intended start, so queueing counts); cells give that rate and its p99.{}\n",
        c.commit_size,
        c.state_size,
        c.value_bytes[0],
        c.value_bytes[1],
        c.readers.first().copied().unwrap_or(0),
        c.min_fraction * 100.0,
        latency(c.p99_bound_us),
        c.rerun_below.map_or(String::new(), |r| format!(
            " A rate that failed on its p99 alone over fewer than {} commits ran again (up to \
             {} runs) and was judged, like its cell, over all its runs.",
            r.min_commits, r.max_runs
        ))
    );
    let mut cells = vec!["profile".to_string(), "durable".to_string()];
    cells.extend(runs.iter().map(|r| esc(r)));
    out.push_str(&header(&cells));
    for p in profiles(entries) {
        let durable = match profile_durable(&p) {
            Some(true) => "**yes** (fsync/commit)",
            Some(false) => "no",
            None => "?",
        };
        let mut line = vec![format!("`{}`", esc(&p)), durable.to_string()];
        for run in &runs {
            let cell = match find(entries, run, &p).map(|e| &e.file) {
                None => "not run".to_string(),
                Some(f) => match f.saturation {
                    Some(s) => format!("{}/s (p99 {})", rate(s.commits_per_sec), latency(s.p99_us)),
                    None => "no rate held".to_string(),
                },
            };
            line.push(cell);
        }
        out.push_str(&row(&line));
    }
    let mut idle: Vec<String> = Vec::new();
    for e in entries {
        let what = CpuIdleRecord::describe_or_unrecorded(e.file.env.cpu_idle.as_ref());
        if !idle.contains(&what) {
            idle.push(what);
        }
    }
    let _ = writeln!(
        out,
        "\nIdle CPUs during the load runs: {}.",
        idle.join("; ")
    );
    let _ = writeln!(
        out,
        "\n![sustained commits/s]({STEM}.svg)\n\nEach profile's `load.json`, \
         `timeseries.csv` and plots are under the criterion directory's \
         `triebench-runs/load/<run>/<profile>/`.\n"
    );
}
