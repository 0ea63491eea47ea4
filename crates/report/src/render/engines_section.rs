//! "Engines side by side": every engine × profile × filesystem of `triebench engines` runs in
//! one table (commits, bytes, reads, proofs, and the backend's part of a commit), a plot of
//! their latencies, and one result as `engines` prints it while it runs ([`row`]).

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::engines::{rows, EngineRow, ENGINE_ONLY_PROFILE};
use crate::error::ReportError;
use crate::model::engines::{EngineResult, EnginesRun, FieldFigures};
use crate::render::chart::{render, DotChart, DotSeries, Interval};
use crate::render::fmt;
use crate::render::table::{header, row as table_row};

/// The plot's file stem in the plots folder.
pub const STEM: &str = "engines";

/// The header line of `engines`' table.
pub const HEADER: &str =
    "engine   profile            update c/s  p50/p99 µs        fill p50/p99 ms    \
wr B/commit  disk B/leaf  nodes/leaf  warm µs  cold µs  proof B  prove/verify µs";

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// One result's line under [`HEADER`].
pub fn row(r: &EngineResult) -> String {
    format!(
        "{:<8} {:<18} {:>10.0}  {:>7.0}/{:<9.0} {:>7.1}/{:<9.1} {:>11.0}  {:>11.0}  {:>10}  {:>7.1}  {:>7}  {:>7}  {}",
        r.engine,
        r.profile,
        r.update.commits_per_s,
        r.update.commit.p50_us,
        r.update.commit.p99_us,
        r.fill.commit.p50_us / 1000.0,
        r.fill.commit.p99_us / 1000.0,
        r.update.write_bytes_per_commit,
        r.disk_bytes_per_leaf,
        opt(r.nodes_per_leaf, |n| format!("{n:.2}")),
        r.read_warm.p50_us,
        opt(r.read_cold.map(|c| c.p50_us), |c| format!("{c:.1}")),
        opt(r.proof.map(|p| p.mean_bytes), |b| format!("{b:.0}")),
        r.proof.map_or_else(
            || "-".to_string(),
            |p| format!("{:.1}/{:.1}", p.prove.p50_us, p.verify.p50_us)
        ),
    )
}

/// A field workload's line under an engine's [`row`], as `engines` prints it.
pub fn field_row(f: &FieldFigures) -> String {
    format!(
        "  field {} (scale {}): {} setup commits, then {} timed: {:.1} commits/s, p50/p99 {:.1}/{:.1} ms, {:.0} leaves and {:.0} B written per commit",
        f.workload,
        f.scale,
        f.setup_commits,
        f.timed.commits,
        f.timed.commits_per_s,
        f.timed.commit.p50_us / 1000.0,
        f.timed.commit.p99_us / 1000.0,
        f.timed.leaves as f64 / f.timed.commits.max(1) as f64,
        f.timed.write_bytes_per_commit,
    )
}

fn share(v: Option<f64>) -> String {
    opt(v, |s| format!("{:.0}%", s * 100.0))
}

fn cells(r: &EngineRow<'_>) -> Vec<String> {
    let e = r.result;
    let us = |v: f64| fmt::trim_zeros(&fmt::sig3(v));
    vec![
        r.fs.to_string(),
        format!("`{}`", e.engine),
        format!("`{}`", e.profile),
        format!("{:.0}", e.update.commits_per_s),
        format!(
            "{} / {}",
            us(e.update.commit.p50_us),
            us(e.update.commit.p99_us)
        ),
        share(r.backend_update_share),
        if e.fill.commits > 0 {
            format!(
                "{} / {}",
                us(e.fill.commit.p50_us / 1000.0),
                us(e.fill.commit.p99_us / 1000.0)
            )
        } else {
            "-".into()
        },
        share(r.backend_fill_share),
        format!("{:.0}", e.update.write_bytes_per_commit),
        format!("{:.0}", e.disk_bytes_per_leaf),
        opt(e.nodes_per_leaf, |n| format!("{n:.2}")),
        us(e.read_warm.p50_us),
        opt(e.read_cold.map(|c| c.p50_us), us),
        opt(e.proof.map(|p| p.mean_bytes), |b| format!("{b:.0}")),
        e.proof.map_or_else(
            || "-".to_string(),
            |p| format!("{} / {}", us(p.prove.p50_us), us(p.verify.p50_us)),
        ),
        opt(r.update_vs_trie, |x| format!("{x:.2}×")),
        opt(r.disk_vs_trie, |x| format!("{x:.2}×")),
    ]
}

/// "Transact's scenarios on each engine": one row per engine, profile and filesystem that ran
/// them, one column per scenario (µs of the engine's calls, or why it was skipped); empty when
/// no result has them (a file from before they ran).
fn scenarios_table(rows: &[EngineRow<'_>]) -> String {
    let Some(names) = rows
        .iter()
        .map(|r| &r.result.scenarios)
        .find(|s| !s.is_empty())
        .map(|s| s.iter().map(|f| f.name.clone()).collect::<Vec<_>>())
    else {
        return String::new();
    };
    let mut md = String::from(
        "Transact's scenarios that every engine can run (the others branch or prune a tip, \
         which the engine interface cannot ask for), run before the check on the same store: \
         µs of the engine's commits, reads and prunes per scenario, every read checked against \
         a model and every root against the engine's reference. A scenario an engine is known \
         to get wrong is skipped, and the note says why.\n\n",
    );
    let mut heads = vec!["filesystem".to_string(), "engine".into(), "profile".into()];
    heads.extend(names.iter().map(|n| format!("`{n}` µs")));
    md.push_str(&header(&heads));
    let mut notes: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| !r.result.scenarios.is_empty()) {
        let e = r.result;
        let mut cells = vec![
            r.fs.to_string(),
            format!("`{}`", e.engine),
            format!("`{}`", e.profile),
        ];
        for name in &names {
            cells.push(match e.scenarios.iter().find(|f| &f.name == name) {
                Some(f) => match &f.skipped {
                    Some(why) => {
                        let note = format!("`{}`, `{name}`: {why}.", e.engine);
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                        "skipped".to_string()
                    }
                    None => fmt::trim_zeros(&fmt::sig3(f.total_us)),
                },
                None => "-".to_string(),
            });
        }
        md.push_str(&table_row(&cells));
    }
    md.push('\n');
    for note in notes {
        let _ = writeln!(md, "- Skipped: {note}");
    }
    md
}

/// "The field's workloads on each engine": one row per engine, profile, filesystem and
/// workload; empty when no result ran one.
fn field_table(rows: &[EngineRow<'_>]) -> String {
    if rows.iter().all(|r| r.result.field.is_empty()) {
        return String::new();
    }
    let mut md = String::from(
        "The field's workloads (`triebench field`'s: Firewood's benchmark set, IAVL-bench's \
         bank shape) on each engine, each on a fresh store: setup commits untimed, then the \
         timed commits measured.\n\n",
    );
    let heads = [
        "filesystem",
        "engine",
        "profile",
        "workload (scale)",
        "timed commits",
        "leaves/commit",
        "commits/s",
        "p50 / p99 ms",
        "written B/commit",
    ];
    md.push_str(&header(&heads.map(String::from)));
    let ms = |v: f64| fmt::trim_zeros(&fmt::sig3(v / 1000.0));
    for r in rows {
        for f in &r.result.field {
            md.push_str(&table_row(&[
                r.fs.to_string(),
                format!("`{}`", r.result.engine),
                format!("`{}`", r.result.profile),
                format!("`{}` ({})", f.workload, f.scale),
                f.timed.commits.to_string(),
                format!(
                    "{:.0}",
                    f.timed.leaves as f64 / f.timed.commits.max(1) as f64
                ),
                fmt::trim_zeros(&fmt::sig3(f.timed.commits_per_s)),
                format!(
                    "{} / {}",
                    ms(f.timed.commit.p50_us),
                    ms(f.timed.commit.p99_us)
                ),
                format!("{:.0}", f.timed.write_bytes_per_commit),
            ]));
        }
    }
    md.push('\n');
    md
}

/// The latencies plot: one category per engine, profile and filesystem, one series per
/// operation (median, whisker to p99), log scale.
fn chart(rows: &[EngineRow<'_>]) -> DotChart {
    type Pick = fn(&EngineResult) -> Option<(f64, f64)>;
    let series: [(&str, Pick); 6] = [
        ("update commit", |e| {
            Some((e.update.commit.p50_us, e.update.commit.p99_us))
        }),
        ("fill commit", |e| {
            (e.fill.commits > 0).then_some((e.fill.commit.p50_us, e.fill.commit.p99_us))
        }),
        ("warm read", |e| {
            Some((e.read_warm.p50_us, e.read_warm.p99_us))
        }),
        ("cold read", |e| e.read_cold.map(|c| (c.p50_us, c.p99_us))),
        ("prove", |e| {
            e.proof.map(|p| (p.prove.p50_us, p.prove.p99_us))
        }),
        ("verify", |e| {
            e.proof.map(|p| (p.verify.p50_us, p.verify.p99_us))
        }),
    ];
    DotChart {
        title: "engines side by side: median per operation (whisker to p99)".into(),
        value_label: "µs per operation (log scale)".into(),
        categories: rows
            .iter()
            .map(|r| format!("{} · {} · {}", r.result.engine, r.result.profile, r.fs))
            .collect(),
        series: series
            .iter()
            .map(|(name, pick)| DotSeries {
                name: name.to_string(),
                points: rows
                    .iter()
                    .map(|r| {
                        pick(r.result).map(|(p50, p99)| Interval {
                            value: p50,
                            low: p50,
                            high: p99.max(p50),
                        })
                    })
                    .collect(),
            })
            .collect(),
        legend_title: "operation".into(),
        notes: vec!["dot: median; whisker: to p99".into()],
        reference: None,
        format: fmt::axis_us,
        point_label: None,
    }
}

/// Writes the section's plot into `plots_dir` and returns the section's markdown, which links
/// it as `<rel>/engines.svg`; empty when there is no result.
pub fn write(runs: &[EnginesRun], plots_dir: &Path, rel: &str) -> Result<String, ReportError> {
    let rows = rows(runs);
    let Some(first) = runs.first() else {
        return Ok(String::new());
    };
    if rows.is_empty() {
        return Ok(String::new());
    }
    std::fs::create_dir_all(plots_dir).map_err(|source| ReportError::Write {
        path: plots_dir.to_path_buf(),
        source,
    })?;
    let c = &first.record;
    let mut md = String::from("## Engines side by side\n\n");
    let _ = writeln!(
        md,
        "`triebench engines`: each authenticated state engine on each kv profile, on fresh \
         stores, its roots first checked batch by batch against its own reference (a wrong root \
         stops the run). Then Transact's `update` workload (1000 single-key commits, then one of \
         50 sets and 50 deletes), then a growth fill of {} leaves in commits of {}; every older \
         version pruned; {} warm reads, cold reads and proofs of present leaves. Backend part: \
         the median commit less the same engine's on `{ENGINE_ONLY_PROFILE}` (in memory: the \
         engine's own format, hashing and encoding, nearly), as a share of the median commit. \
         Bytes written: `write_bytes` of the run's processes (0 on tmpfs). Cold reads: {}.\n",
        c.fill_leaves, c.fill_batch, c.reads, c.cold_method
    );
    let heads = [
        "filesystem",
        "engine",
        "profile",
        "update commits/s",
        "update p50 / p99 µs",
        "backend part (update)",
        "fill p50 / p99 ms",
        "backend part (fill)",
        "written B/commit (update)",
        "disk B/leaf",
        "nodes/leaf",
        "warm read µs",
        "cold read µs",
        "proof B",
        "prove / verify µs",
        "update ÷ trie",
        "disk ÷ trie",
    ];
    md.push_str(&header(&heads.map(String::from)));
    for r in &rows {
        md.push_str(&table_row(&cells(r)));
    }
    md.push('\n');
    for run in runs {
        let _ = writeln!(
            md,
            "- `{}`: {} ({}), started {}; roots checked: {}.",
            run.fs,
            if run.record.dir.is_empty() {
                "memory"
            } else {
                &run.record.dir
            },
            run.record.fs_type,
            run.record.started,
            run.record
                .results
                .iter()
                .map(|r| format!(
                    "{} on {} ({} batches)",
                    r.engine, r.profile, r.checked_batches
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    md.push('\n');
    for table in [scenarios_table(&rows), field_table(&rows)] {
        if !table.is_empty() {
            md.push_str(&table);
            md.push('\n');
        }
    }
    let chart = chart(&rows);
    render(&chart, plots_dir, STEM)?;
    let _ = writeln!(md, "![{}]({rel}/{STEM}.svg)", chart.title);
    Ok(md)
}
