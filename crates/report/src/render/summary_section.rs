//! The report's summary, right after "Can these figures be trusted?": the figures that hold
//! across hosts first (each profile's commit above its own storage floor ÷ `btree`'s, from
//! [`host_free`](crate::analysis::host_free)), then the suite ÷ `btree` that moves with the host, and what moves how much,
//! with the two-host evidence.

use std::fmt::Write as _;

use crate::analysis::host_free::{above_vs_btree, AboveRatio};
use crate::analysis::ratios::{Comparison, Ratios, Status};
use crate::model::bench_id::{split_implementation, BenchKey, OURS, REFERENCE_PROFILE, SUITE};
use crate::model::results::ResultSet;
use crate::render::fmt;
use crate::render::markdown::durable_cell;
use crate::render::table::{esc, header, row};

/// The section's heading.
pub const HEADING: &str = "Summary: figures that hold across hosts first";

fn above_cell(results: &ResultSet, run: &str, profile: &str) -> String {
    let is_reference = profile == REFERENCE_PROFILE;
    match above_vs_btree(results, run, profile) {
        None => "not measured".to_string(),
        Some(AboveRatio {
            above,
            ratio: Some((r, lo, hi)),
            ..
        }) => {
            if is_reference {
                format!("1× (reference; above {})", fmt::time_ns(above.above.point))
            } else {
                format!(
                    "{} (above {})",
                    fmt::ratio_ci(r, lo, hi),
                    fmt::time_ns(above.above.point)
                )
            }
        }
        Some(AboveRatio {
            above, reference, ..
        }) => {
            if above.above.point < 0.0 {
                format!(
                    "no figure: above {} is negative (flagged above)",
                    fmt::time_ns(above.above.point)
                )
            } else if above.above.lower <= 0.0 {
                format!(
                    "no figure: above {} [{} – {}] is not clear of zero",
                    fmt::time_ns(above.above.point),
                    fmt::time_ns(above.above.lower),
                    fmt::time_ns(above.above.upper)
                )
            } else {
                format!(
                    "no figure: `btree`'s above {} [{} – {}] is not clear of zero",
                    fmt::time_ns(reference.above.point),
                    fmt::time_ns(reference.above.lower),
                    fmt::time_ns(reference.above.upper)
                )
            }
        }
    }
}

fn suite_cell(results: &ResultSet, ratios: &Ratios, run: &str, profile: &str) -> String {
    let key = BenchKey::new(&format!("scenario/{SUITE}"), Some(profile), None);
    if results.get(run, &key).is_none() {
        return "not measured".to_string();
    }
    if profile == REFERENCE_PROFILE {
        return "1× (reference)".to_string();
    }
    match ratios.get(Comparison::OverheadVsBtree, &key, run) {
        Some(r) => match (r.status, r.ratio, r.ci_low, r.ci_high) {
            (Status::Ok, Some(x), Some(lo), Some(hi)) => fmt::ratio_ci(x, lo, hi),
            _ => "– (`btree` missing)".to_string(),
        },
        None => "–".to_string(),
    }
}

/// Appends the summary.
pub fn render(out: &mut String, results: &ResultSet, ratios: &Ratios) {
    let runs: Vec<String> = results
        .runs
        .iter()
        .filter(|r| r.present)
        .map(|r| r.name.clone())
        .collect();
    let profiles: Vec<String> = results
        .scenario_profiles()
        .into_iter()
        .filter(|p| split_implementation(p).0 == OURS)
        .collect();
    if runs.is_empty() || profiles.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## {HEADING}\n\n\
         **above floor ÷ `btree`'s** leads: what a profile's `update` commit costs above its \
         own storage floor (the same writes straight on the store), ÷ what `btree`'s costs \
         above its floor (the trie's own work: hashing, reads). Each side has the storage's own \
         writes taken out and both pay the same hashing, so the ratio is the backend's access \
         pattern's cost to the trie, which moved little between two hosts (below); with its 95% \
         interval (the two \
         above-floors' Welch intervals combined on the log scale). **suite ÷ `btree`** follows: \
         the whole ten-scenario suite against the in-memory `btree` on the same filesystem, \
         which moves with the host.\n"
    );
    let mut columns = vec!["profile".to_string(), "durable".to_string()];
    columns.extend(
        runs.iter()
            .map(|r| format!("`{}`: above floor ÷ `btree`'s", esc(r))),
    );
    columns.extend(
        runs.iter()
            .map(|r| format!("`{}`: suite ÷ `btree`", esc(r))),
    );
    out.push_str(&header(&columns));
    for p in &profiles {
        let mut cells = vec![format!("`{}`", esc(p)), durable_cell(p).to_string()];
        cells.extend(runs.iter().map(|r| above_cell(results, r, p)));
        cells.extend(runs.iter().map(|r| suite_cell(results, ratios, r, p)));
        out.push_str(&row(&cells));
    }
    out.push_str(
        "\n**What moves with the host, and by how much.** The same release binary and profiles \
         on two hosts — the project's 2-vCPU VM (AMD EPYC host; SHA-512 of 8 KiB 8.8 µs) and a \
         16-core Intel Xeon host (28.8 µs, 3.3× slower hashing) — on tmpfs (issue 46; points, \
         their intervals are in those runs' reports):\n\n\
         - *hash speed* moves `btree`'s time, the trie's own work, and with it every ratio \
         against `btree`: suite ÷ `btree` went 7.12 → 5.28 (`sqlite-wal`, −26%), \
         18.9 → 8.76 (`sqlite-rollback`, −54%), 2.83 → 2.14 (`lmdb`, −24%);\n\
         - *above floor ÷ `btree`'s* hardly moved: 2.89 → 2.74 (`sqlite-wal`, −5%), \
         2.91 → 2.61 (`sqlite-wal-full`, −10%), 1.42 → 1.34 (`lmdb`, −6%); `sqlite-rollback`'s \
         did move, 13.2 → 5.7 (−57%), so it does not carry across hosts either;\n\
         - absolute times move with everything (CPU, memory, disk, load): compare them only \
         within one report, where this report's first section says how quiet each run was.\n\n",
    );
}
