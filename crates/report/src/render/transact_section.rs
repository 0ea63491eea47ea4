//! The "triebench vs Transact" section of `report.md` (feature `transact`): per filesystem,
//! the suite on every store both implementations ran, both times, `Transact / triebench` with
//! its 95% interval and which of the two fsyncs per commit; then each implementation's slowdown
//! on the other filesystems beside the published Transact 0.3.7 figures. Written only when the
//! results hold another implementation's measurements.

use std::fmt::Write as _;

use crate::analysis::transact::{suite_slowdowns, transact_fsyncs, versus};
use crate::model::bench_id::{profile_durable, SUITE};
use crate::model::results::ResultSet;
use crate::render::fmt;
use crate::render::table::{esc, header, row};

/// The published Transact 0.3.7 slowdowns (EBS -> EFS, whole suite), by profile.
fn published(profile: &str) -> Option<&'static str> {
    match profile {
        "lmdb" => Some("18x (15.44 s / 0.850 s)"),
        "sqlite-wal" => Some("99x (663.6 s / 6.737 s)"),
        _ => None,
    }
}

fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "**yes**".into(),
        Some(false) => "no".into(),
        None => "?".into(),
    }
}

fn ratio_cell(r: Option<crate::analysis::stats::RatioCi>) -> String {
    r.map_or_else(
        || "–".to_string(),
        |r| fmt::ratio_ci(r.ratio, r.low, r.high),
    )
}

/// Appends the section to `out` (nothing when no other implementation was measured).
pub fn render(out: &mut String, results: &ResultSet, resamples: usize) {
    let rows: Vec<_> = versus(results, resamples)
        .into_iter()
        .filter(|r| r.scenario == SUITE)
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "## triebench vs Transact\n");
    let _ = writeln!(
        out,
        "The ten-scenario suite measured on the same store by triebench and by Hyperledger \
         Transact's own code (`benches/transact.rs`, crates/transact-compare), in the same run. \
         Ratio = Transact / triebench (> 1: triebench is faster), 95% bootstrap interval. \
         \"fsync\" = the commit reaches stable storage before it returns; Transact's LMDB flags \
         (WRITEMAP, MAPASYNC) never sync, so its `lmdb` is compared with our durable `lmdb` \
         (our `lmdb-async` uses its flags). Transact's Redis reads every node from the server, so \
         it is compared with our `redis-uncached`, not our cached `redis`.\n"
    );
    let runs: Vec<String> = results.run_names();
    for run in &runs {
        let in_run: Vec<_> = rows.iter().filter(|r| &r.run == run).collect();
        if in_run.is_empty() {
            continue;
        }
        let fs = results
            .runs
            .iter()
            .find(|r| &r.name == run)
            .and_then(|r| r.fs.as_ref())
            .map(|f| format!(" ({} on {})", f.fs_type, f.mount_point))
            .unwrap_or_default();
        let _ = writeln!(out, "### {}{}\n", esc(run), esc(&fs));
        out.push_str(&header(&[
            "implementation".into(),
            "store".into(),
            "triebench".into(),
            "Transact".into(),
            "Transact / triebench".into(),
            "triebench fsync".into(),
            "Transact fsync".into(),
        ]));
        for r in in_run {
            out.push_str(&row(&[
                esc(&r.implementation),
                if r.ours_profile == r.profile {
                    format!("`{}`", esc(&r.profile))
                } else {
                    format!("`{}` (ours: `{}`)", esc(&r.profile), esc(&r.ours_profile))
                },
                fmt::time_ns(r.ours_ns),
                fmt::time_ns(r.theirs_ns),
                ratio_cell(r.ratio),
                yes_no(profile_durable(&r.ours_profile)),
                yes_no(transact_fsyncs(&r.implementation, &r.profile)),
            ]));
        }
        out.push('\n');
    }

    let slowdowns = suite_slowdowns(results, resamples);
    if slowdowns.is_empty() {
        return;
    }
    let baseline = runs.first().cloned().unwrap_or_default();
    let _ = writeln!(
        out,
        "### Slowdown vs `{}`, per implementation\n\nThe published Transact 0.3.7 study \
         measured EBS -> EFS; compare its figures with a run on an EFS-like filesystem \
         (scripts/fs-lab.sh `efs-sim`).\n",
        esc(&baseline)
    );
    out.push_str(&header(&[
        "run".into(),
        "store".into(),
        "implementation".into(),
        "slowdown".into(),
        "published (Transact 0.3.7)".into(),
    ]));
    for s in &slowdowns {
        let published = if s.implementation == "transact-0.3.7" {
            published(&s.profile).unwrap_or("–")
        } else {
            "–"
        };
        out.push_str(&row(&[
            esc(&s.run),
            format!("`{}`", esc(&s.profile)),
            esc(&s.implementation),
            ratio_cell(s.slowdown),
            published.to_string(),
        ]));
    }
    out.push('\n');
}
