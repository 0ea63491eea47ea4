//! "How cost grows with state": the growth curves' table (each curve at its largest state),
//! the plots over the leaf count (log-log) and what Transact's uncompressed format costs
//! against a path-compressed trie of the same state.

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::grow::{summarize, GrowSummary};
use crate::error::ReportError;
use crate::model::grow::GrowCurve;
use crate::render::fmt::{axis_count, axis_us};
use crate::render::grow_plots::{render, GrowChart, GrowLine};
use crate::render::table::{header, row};

/// Colour per profile and dash style per filesystem, in order of first appearance.
fn keys(curves: &[GrowCurve], curve: &GrowCurve) -> (usize, usize) {
    let mut profiles: Vec<&str> = Vec::new();
    let mut filesystems: Vec<&str> = Vec::new();
    for c in curves {
        if !profiles.contains(&c.record.profile.as_str()) {
            profiles.push(&c.record.profile);
        }
        if !filesystems.contains(&c.fs.as_str()) {
            filesystems.push(&c.fs);
        }
    }
    let p = profiles
        .iter()
        .position(|p| *p == curve.record.profile)
        .unwrap_or(0);
    let f = filesystems.iter().position(|f| *f == curve.fs).unwrap_or(0);
    (p, f)
}

fn line(
    curves: &[GrowCurve],
    curve: &GrowCurve,
    suffix: &str,
    y: impl Fn(&crate::model::grow::Checkpoint) -> Option<f64>,
) -> GrowLine {
    let (color, style) = keys(curves, curve);
    GrowLine {
        name: format!("{}{suffix}", curve.label()),
        color,
        style,
        points: curve
            .record
            .checkpoints
            .iter()
            .filter_map(|c| Some((c.leaves as f64, y(c)?)))
            .collect(),
    }
}

/// The section's plots, written into `plots_dir` (named relative to `rel` in the markdown).
fn charts(curves: &[GrowCurve]) -> Vec<(GrowChart, &'static str)> {
    let lines = |f: &dyn Fn(&GrowCurve) -> GrowLine| curves.iter().map(f).collect::<Vec<_>>();
    vec![
        (
            GrowChart {
                title: "1-key commit p99 vs state size".into(),
                y_label: "p99 commit latency".into(),
                lines: lines(&|c| line(curves, c, "", |k| Some(k.commit_1.latency.p99_us))),
                format: axis_us,
            },
            "grow-commit1-p99",
        ),
        (
            GrowChart {
                title: "100-key commit p50 vs state size".into(),
                y_label: "p50 commit latency".into(),
                lines: lines(&|c| line(curves, c, "", |k| Some(k.commit_100.latency.p50_us))),
                format: axis_us,
            },
            "grow-commit100-p50",
        ),
        (
            GrowChart {
                title: "Cold read p50 (store evicted from the page cache) vs state size".into(),
                y_label: "p50 read latency".into(),
                lines: curves
                    .iter()
                    .filter(|c| c.record.checkpoints.iter().any(|k| k.read_cold.is_some()))
                    .map(|c| line(curves, c, "", |k| k.read_cold.map(|l| l.p50_us)))
                    .collect(),
                format: axis_us,
            },
            "grow-read-cold",
        ),
        (
            GrowChart {
                title: "Warm read p50 vs state size".into(),
                y_label: "p50 read latency".into(),
                lines: lines(&|c| line(curves, c, "", |k| Some(k.read_warm.p50_us))),
                format: axis_us,
            },
            "grow-read-warm",
        ),
        (
            GrowChart {
                title: "Fill rate of the stretch ending at each size".into(),
                y_label: "leaves/s".into(),
                lines: lines(&|c| line(curves, c, "", |k| Some(k.fill_leaves_per_sec))),
                format: axis_count,
            },
            "grow-fill",
        ),
        (
            GrowChart {
                title: "Bytes on disk per leaf (and the path-compressed what-if)".into(),
                y_label: "bytes per leaf".into(),
                lines: {
                    let mut v = lines(&|c| line(curves, c, "", |k| Some(k.disk_bytes_per_leaf)));
                    // The what-if of the largest state measured (it depends only on the state).
                    if let Some(c) = curves.iter().max_by_key(|c| c.last().map(|k| k.leaves)) {
                        let mut logical = line(curves, c, ": logical, Transact's trie", |k| {
                            Some(k.what_if.bytes as f64 / k.leaves.max(1) as f64)
                        });
                        logical.name = "logical, Transact's trie".into();
                        logical.color = 7;
                        logical.style = 0;
                        let mut compressed = line(curves, c, "", |k| {
                            Some(k.what_if.compressed_bytes as f64 / k.leaves.max(1) as f64)
                        });
                        compressed.name = "logical, compressed (what-if)".into();
                        compressed.color = 7;
                        compressed.style = 3;
                        v.push(logical);
                        v.push(compressed);
                    }
                    v
                },
                format: axis_count,
            },
            "grow-bytes",
        ),
    ]
}

fn us(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.1} ms", v / 1000.0)
    } else {
        format!("{v:.0} µs")
    }
}

fn table(summaries: &[GrowSummary]) -> String {
    let mut out = header(
        &[
            "profile",
            "fs",
            "leaves",
            "fill leaves/s",
            "fill ÷ storage",
            "fill ÷ floor (trie's order / shuffled)",
            "commit 1 key p99",
            "commit 100 keys p99",
            "read warm p50",
            "read cold p50 / p99",
            "disk B/leaf",
            "store B/leaf (÷ data)",
            "logical B/leaf (compressed)",
            "nodes/leaf (compressed)",
            "written B per 1-key commit",
            "memory bound",
        ]
        .map(String::from),
    );
    for s in summaries {
        out.push_str(&row(&[
            s.profile.clone(),
            s.fs.clone(),
            s.leaves.to_string(),
            format!("{:.0}", s.fill_rate),
            s.fill_over_storage
                .map_or_else(|| "—".into(), |r| format!("{r:.2}×")),
            s.fill_over_floor.map_or_else(
                || "—".into(),
                |(sorted, shuffled)| match shuffled {
                    Some(shuffled) => format!("{sorted:.2}× / {shuffled:.2}×"),
                    None => format!("{sorted:.2}× / —"),
                },
            ),
            us(s.commit1_p99_us),
            us(s.commit100_p99_us),
            us(s.read_warm_p50_us),
            s.read_cold_us
                .map_or_else(|| "—".into(), |(a, b)| format!("{} / {}", us(a), us(b))),
            format!("{:.0}", s.disk_per_leaf),
            s.store_and_data_per_leaf.map_or_else(
                || "—".into(),
                |(store, data)| format!("{store:.0} ({:.2}×)", store / data.max(1.0)),
            ),
            format!("{:.0} ({:.0})", s.logical_per_leaf.0, s.logical_per_leaf.1),
            format!("{:.1} ({:.2})", s.nodes_per_leaf.0, s.nodes_per_leaf.1),
            format!("{:.0}", s.write_per_commit1),
            s.memory.map_or_else(
                || "—".into(),
                |(limit, peak, held)| {
                    format!(
                        "{} MiB, peak {} MiB, {}",
                        limit >> 20,
                        peak >> 20,
                        if held { "held" } else { "EXCEEDED" }
                    )
                },
            ),
        ]));
    }
    out
}

/// Writes the section's plots into `plots_dir` and returns the section's markdown, which links
/// them as `<rel>/<stem>.svg`.
pub fn write(curves: &[GrowCurve], plots_dir: &Path, rel: &str) -> Result<String, ReportError> {
    std::fs::create_dir_all(plots_dir).map_err(|source| ReportError::Write {
        path: plots_dir.to_path_buf(),
        source,
    })?;
    let summaries: Vec<GrowSummary> = curves.iter().filter_map(summarize).collect();
    let mut md = String::new();
    let _ = writeln!(md, "## How cost grows with state\n");
    let _ = writeln!(
        md,
        "Each profile filled from the empty root with the load's generator (70-hex addresses, \
         values log-uniform 32 B–1 KiB) in large batches; at each checkpoint: 1-key and 100-key \
         commits (updates of random leaves), reads of random leaves warm and after the store's \
         files were evicted from the page cache (cold), bytes on disk, and the same state's \
         size if the trie compressed single-child paths (computed from the addresses). Each \
         row is the curve at its largest state. \"fill ÷ storage\" is the fill's time over the \
         part of it the backend spent reading, staging and committing (phase spans): 1.0× would \
         be a fill that costs only what storing its nodes costs. \"fill ÷ floor\" (with `grow \
         --fill-floor`) is the fill's time over the same writes made straight on two more stores \
         of the profile, as the trie ordered them and shuffled. \"store B/leaf\" is what the \
         store holds by its own accounting (pages, free pages, a WAL), and over the data in it \
         (node keys as stored, raw 32-byte hashes since store layout 2, node values, change \
         log).\n"
    );
    md.push_str(&table(&summaries));
    md.push('\n');
    for (chart, stem) in charts(curves) {
        if chart.lines.iter().all(|l| l.points.is_empty()) {
            continue;
        }
        let plot = render(&chart, plots_dir, stem)?;
        let _ = writeln!(md, "![{}]({rel}/{stem}.svg)\n", plot.title);
    }
    Ok(md)
}
