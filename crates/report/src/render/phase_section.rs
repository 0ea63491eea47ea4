//! The report's "Where a commit's time goes" section and its plots, when `triebench phases`
//! ran for a filesystem (`scripts/bench-fs.sh` does for each): per filesystem, a table of each
//! profile's suite time split into phases (time and share), a stacked-bar plot
//! `phases-<run>.{svg,png}`, and what one phase span costs as the `phases` bench measured it.

use std::fmt::Write as _;
use std::path::Path;

use triebench_record::vocabulary::PHASES;

use crate::analysis::phases::{suite_breakdowns, Breakdown, SpanCost};
use crate::error::ReportError;
use crate::model::phases::PhaseRunFile;
use crate::render::fmt;
use crate::render::phase_chart::{render as render_chart, StackedChart};
use crate::render::plots::{profile_label, PlotFile};
use crate::render::table::{esc, header, row};

/// Name of the time outside every phase (workload code, opening the trie).
const OTHER: &str = "other";

/// The plot's file stem for `run`.
pub fn stem(run: &str) -> String {
    format!("phases-{run}")
}

fn segments() -> Vec<String> {
    PHASES
        .iter()
        .map(|p| p.to_string())
        .chain(std::iter::once(OTHER.to_string()))
        .collect()
}

fn ms(ns: u64) -> String {
    fmt::trim_zeros(&fmt::time_ns(ns as f64))
}

fn pct(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// The stacked chart of `file`'s suite rows (also redrawn by `report.html`).
pub fn chart(file: &PhaseRunFile, rows: &[Breakdown]) -> StackedChart {
    StackedChart {
        title: format!("where a commit's time goes: the suite on {}", file.run),
        categories: rows.iter().map(|b| profile_label(&b.profile)).collect(),
        totals: rows.iter().map(|b| ms(b.total_ns)).collect(),
        segments: segments(),
        shares: rows
            .iter()
            .map(|b| {
                b.phase_ns
                    .iter()
                    .chain(std::iter::once(&b.other_ns))
                    .map(|&ns| b.share(ns))
                    .collect()
            })
            .collect(),
        legend_title: "phase".to_string(),
    }
}

/// Writes one plot per filesystem with a phase run into `dir`.
pub fn write_plots(files: &[PhaseRunFile], dir: &Path) -> Result<Vec<PlotFile>, ReportError> {
    let mut out = Vec::new();
    for file in files {
        let rows = suite_breakdowns(file);
        if rows.is_empty() {
            continue;
        }
        let chart = chart(file, &rows);
        let (svg, png, size) = render_chart(&chart, dir, &stem(&file.run))?;
        out.push(PlotFile {
            title: chart.title,
            svg,
            png,
            size,
        });
    }
    Ok(out)
}

fn table(out: &mut String, rows: &[Breakdown], cost: Option<&SpanCost>) {
    let mut cells = vec![
        "profile".to_string(),
        "suite".to_string(),
        "per commit".to_string(),
    ];
    cells.extend(segments());
    cells.push("spans".to_string());
    if cost.is_some() {
        cells.push("measuring (spans × cost)".to_string());
    }
    out.push_str(&header(&cells));
    for b in rows {
        let per_commit = b.total_ns.checked_div(b.commits).unwrap_or(0);
        let mut line = vec![
            format!("`{}`", esc(&profile_label(&b.profile))),
            ms(b.total_ns),
            ms(per_commit),
        ];
        for &ns in b.phase_ns.iter().chain(std::iter::once(&b.other_ns)) {
            line.push(format!("{} ({})", ms(ns), pct(b.share(ns))));
        }
        line.push(b.spans.to_string());
        if let Some(c) = cost {
            let ns = (b.spans as f64 * c.collected.point) as u64;
            line.push(format!("{} ({})", ms(ns), pct(b.share(ns))));
        }
        out.push_str(&row(&line));
    }
}

/// Appends the section (nothing when no filesystem has a phase run).
pub fn render(out: &mut String, files: &[PhaseRunFile], cost: Option<&SpanCost>) {
    if files.iter().all(|f| f.suite_rows().next().is_none()) {
        return;
    }
    out.push_str("\n## Where a commit's time goes\n\n");
    out.push_str(
        "`triebench phases` runs each of Transact's ten scenarios once per profile, on a fresh \
         store under the filesystem's directory, with the phase collector listening: the trie \
         and the storage boundary open a `tracing` span per phase, and each span's *self* time \
         (minus the spans inside it) is summed, so nothing is counted twice. `storage_read`: \
         backend gets and scans (a round trip each on a server); `node_decode`: checking and \
         copying a loaded node; `encode` and `hash`: re-encoding and SHA-512 of changed nodes; \
         `storage_write`: puts and deletes staged in the transaction; `commit`: the backend's \
         commit (fsync where the profile does); `trie`: the trie's own work; `other`: time \
         outside every phase (the workload itself). Times are one run's, not criterion's \
         estimates; read shares, not absolute times.\n",
    );
    for file in files {
        let rows = suite_breakdowns(file);
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### `{}` (`{}`)\n", esc(&file.run), esc(&file.dir));
        if let Some(idle) = &file.cpu_idle {
            let _ = writeln!(out, "Taken with {}.\n", idle.describe());
        }
        table(out, &rows, cost);
        let _ = writeln!(
            out,
            "\n![where a commit's time goes on {run}]({stem}.svg)",
            run = esc(&file.run),
            stem = stem(&file.run)
        );
    }
    match cost {
        Some(c) => {
            let _ = writeln!(
                out,
                "\n**What measuring costs** (`phases` bench, run `{}`): one phase span costs \
                 {} with nothing listening (every benchmark and every command without \
                 `--phases`) and {} with the phase collector listening (these tables); the \
                 last column is what the measuring added to each row (spans × that cost), \
                 included in its times.\n",
                esc(&c.run),
                fmt::trim_zeros(&fmt::time_ns(c.idle.point)),
                fmt::trim_zeros(&fmt::time_ns(c.collected.point)),
            );
        }
        None => out.push_str(
            "\nThe cost of one span was not measured in these runs (`cargo bench --bench \
             phases`).\n",
        ),
    }
}
