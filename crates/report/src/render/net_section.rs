//! "Time against distance to the database server": the suite per profile at each round trip the
//! delay proxy added (with its ratio to the profile's zero-distance runs and `update` per commit
//! against its storage floor), the plot of suite time over round trip, and the writer under
//! load per round trip.

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::net::{load_rows, suite_lines, suite_rows};
use crate::error::ReportError;
use crate::model::net::NetRuns;
use crate::render::net_plots::render;
use crate::render::table::{header, row};

/// The plot's file stem.
pub const PLOT_STEM: &str = "net-suite";

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}"))
}

/// The section as markdown; its plot is written into `plots_dir` and linked as `rel/...`.
pub fn write(runs: &NetRuns, plots_dir: &Path, rel: &str) -> Result<String, ReportError> {
    let mut md = String::new();
    md.push_str(
        "## Time against distance to the database server\n\n\
         Each run's stores reached their managed server straight (`direct`) or through the \
         user-space delay proxy (`--net-rtt`; `proxy 0`: proxied without delay), as its record's \
         `net` says. Times are means of the run's samples; ratios divide a profile's suite by \
         the same profile's direct run and proxy-0 run; `update ÷ floor` divides `update`'s time \
         per single-key commit by the profile's storage floor per commit in the same run.\n\n",
    );
    let rows = suite_rows(runs);
    if rows.is_empty() {
        md.push_str("No headline run records here.\n\n");
    } else {
        md.push_str("### Suite against added round trip\n\n");
        md.push_str(&header(
            &[
                "profile",
                "distance",
                "suite (ms)",
                "÷ direct",
                "÷ proxy 0",
                "update / commit (ms)",
                "floor / commit (ms)",
                "update ÷ floor",
            ]
            .map(String::from),
        ));
        for r in &rows {
            md.push_str(&row(&[
                format!("`{}`", r.profile),
                r.distance.label(),
                cell(r.suite_ms, 0),
                cell(r.vs_direct, 2),
                cell(r.vs_proxy0, 2),
                cell(r.update_ms, 3),
                cell(r.floor_ms, 3),
                cell(r.update_over_floor(), 2),
            ]));
        }
        md.push('\n');
        let lines = suite_lines(&rows);
        if !lines.is_empty() {
            std::fs::create_dir_all(plots_dir).map_err(|source| ReportError::Write {
                path: plots_dir.to_path_buf(),
                source,
            })?;
            let plot = render(&lines, plots_dir, PLOT_STEM)?;
            let _ = writeln!(md, "![{}]({rel}/{PLOT_STEM}.svg)\n", plot.title);
        }
    }
    let load = load_rows(runs);
    if !load.is_empty() {
        md.push_str("### The writer under load against added round trip\n\n");
        md.push_str(&header(
            &[
                "profile",
                "readers",
                "distance",
                "offered /s",
                "commits /s",
                "commit p50 (ms)",
                "commit p99 (ms)",
            ]
            .map(String::from),
        ));
        for l in &load {
            md.push_str(&row(&[
                format!("`{}`", l.profile),
                l.readers.to_string(),
                l.distance.label(),
                format!("{:.0}", l.offered),
                format!("{:.0}", l.commits_per_sec),
                format!("{:.1}", l.p50_ms),
                format!("{:.1}", l.p99_ms),
            ]));
        }
        md.push('\n');
    }
    Ok(md)
}
