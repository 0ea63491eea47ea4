//! `report.md`: tables of times, slowdowns and overheads (with intervals), the floors, the plots,
//! the filesystems and everything missing.

use std::fmt::Write as _;

use crate::analysis::missing::MissingItem;
use crate::analysis::predict::Prediction;
use crate::analysis::ratios::{Comparison, Ratios, Status};
use crate::analysis::stats::CONFIDENCE;
use crate::analysis::transact::transact_fsyncs;
use crate::model::bench_id::{
    profile_durable, split_implementation, BenchKey, FLOOR_FSYNC, FLOOR_SHA512, OURS,
    REFERENCE_PROFILE, SUITE,
};
use crate::model::io_profile::IoProfileFile;
use crate::model::results::{Measurement, ResultSet};
use crate::read::env::EnvInfo;
use crate::render::fmt;
use crate::render::plots::PlotFile;
use crate::render::table::{esc, header, row};

/// What `report.md` is written from.
pub struct ReportInput<'a> {
    /// Runs and measurements.
    pub results: &'a ResultSet,
    /// Ratios with intervals.
    pub ratios: &'a Ratios,
    /// Everything missing.
    pub missing: &'a [MissingItem],
    /// Plots written (paths are made relative to the report folder).
    pub plots: &'a [PlotFile],
    /// The environment.
    pub env: &'a EnvInfo,
    /// The command that regenerates the report.
    pub command: String,
    /// Bootstrap rounds used.
    pub resamples: usize,
    /// The I/O profile, when one was taken.
    pub io_profile: Option<&'a IoProfileFile>,
    /// Slowdowns predicted from it.
    pub predictions: &'a [Prediction],
    /// Load-generator results bench-fs.sh saved beside the runs (empty when none).
    pub load: &'a [crate::read::load_runs::LoadEntry],
    /// Crash-test results, when `crash.json` sits beside the run sidecars.
    pub crash: Option<&'a crate::model::crash::CrashFile>,
    /// Crash-state explorations, when `crash-models.json` sits beside the run sidecars.
    pub crash_models: Option<&'a crate::model::crash_models::CrashModelsFile>,
    /// Phase runs (`triebench phases`) of the report's runs (empty when none).
    pub phases: &'a [crate::model::phases::PhaseRunFile],
    /// What one phase span costs, when the `phases` bench ran.
    pub span_cost: Option<&'a crate::analysis::phases::SpanCost>,
    /// What in the data does not hold up (`crate::analysis::trust::find`).
    pub flags: &'a [crate::analysis::trust::Flag],
}

/// The cell text for a missing measurement.
pub const MISSING: &str = "missing";

/// How `report.md` marks a durable profile (fsync per commit) in the durable column.
pub const DURABLE_YES: &str = "**yes** (fsync/commit)";

/// `profile` is ours (`lmdb`) or another implementation's (`transact-0.3.7:lmdb`, whose
/// durability is that implementation's own: Transact's LMDB flags never sync).
pub(crate) fn durable_cell(profile: &str) -> &'static str {
    let durable = match split_implementation(profile) {
        (OURS, ours) => profile_durable(ours),
        (implementation, theirs) => transact_fsyncs(implementation, theirs),
    };
    match durable {
        Some(true) => DURABLE_YES,
        Some(false) => "no",
        None => "? (unknown profile)",
    }
}

fn time_with_rate(m: &Measurement) -> String {
    let t = fmt::time_ns(m.mean.point);
    let r = fmt::throughputs(&m.throughput, m.mean.point);
    if r.is_empty() {
        t
    } else {
        format!("{t} ({r})")
    }
}

impl ReportInput<'_> {
    pub(crate) fn baseline(&self) -> String {
        self.results
            .run_names()
            .first()
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn run_present(&self, run: &str) -> bool {
        self.results.runs.iter().any(|r| r.name == run && r.present)
    }

    pub(crate) fn run_headers(&self, first: &[&str]) -> Vec<String> {
        let mut cells: Vec<String> = first.iter().map(|s| s.to_string()).collect();
        for (i, run) in self.results.run_names().iter().enumerate() {
            let fs = self
                .results
                .runs
                .get(i)
                .and_then(|r| r.fs.as_ref())
                .map(|f| format!(" ({})", f.fs_type))
                .unwrap_or_default();
            let base = if i == 0 { ", baseline" } else { "" };
            cells.push(format!("{}{fs}{base}", esc(run)));
        }
        cells
    }

    /// Time on each run, and for non-baseline runs the slowdown vs the baseline with its CI.
    fn slowdown_cells(&self, key: &BenchKey) -> Vec<String> {
        let runs = self.results.run_names();
        runs.iter()
            .enumerate()
            .map(|(i, run)| {
                if !self.run_present(run) {
                    return "run missing".to_string();
                }
                let Some(m) = self.results.get(run, key) else {
                    return MISSING.to_string();
                };
                let time = time_with_rate(m);
                if i == 0 {
                    return time;
                }
                match self.ratios.get(Comparison::SlowdownVsBaseline, key, run) {
                    Some(r) => match (r.status, r.ratio, r.ci_low, r.ci_high) {
                        (Status::Ok, Some(x), Some(lo), Some(hi)) => {
                            format!("{time} · {}", fmt::ratio_ci(x, lo, hi))
                        }
                        (Status::MissingReference, ..) => format!("{time} · – (baseline missing)"),
                        _ => format!("{time} · –"),
                    },
                    None => time,
                }
            })
            .collect()
    }

    fn overhead_cells(&self, key: &BenchKey) -> Vec<String> {
        let is_reference = key.profile().as_deref() == Some(REFERENCE_PROFILE);
        self.results
            .run_names()
            .iter()
            .map(|run| {
                if !self.run_present(run) {
                    return "run missing".to_string();
                }
                if self.results.get(run, key).is_none() {
                    return MISSING.to_string();
                }
                if is_reference {
                    return "1× (reference)".to_string();
                }
                match self.ratios.get(Comparison::OverheadVsBtree, key, run) {
                    Some(r) => match (r.status, r.ratio, r.ci_low, r.ci_high) {
                        (Status::Ok, Some(x), Some(lo), Some(hi)) => fmt::ratio_ci(x, lo, hi),
                        (Status::MissingReference, ..) => "– (btree missing)".to_string(),
                        _ => "–".to_string(),
                    },
                    None => "–".to_string(),
                }
            })
            .collect()
    }

    fn floor_rows(&self, out: &mut String) {
        for (name, label) in [
            (FLOOR_FSYNC, "_floor: 4 KiB write + fdatasync_"),
            (FLOOR_SHA512, "_floor: SHA-512 of 8 KiB_"),
        ] {
            let key = BenchKey::new("floor", Some(name), None);
            let mut cells = vec![label.to_string(), "–".to_string()];
            cells.extend(self.slowdown_cells(&key));
            out.push_str(&row(&cells));
        }
    }

    fn scenario_tables(&self, out: &mut String, scenario: &str, with_floors: bool) {
        let baseline = self.baseline();
        let group = format!("scenario/{scenario}");
        let profiles = self.results.scenario_profiles();
        let _ = writeln!(
            out,
            "Time per run (mean per iteration); on the other runs also the slowdown vs \
             `{baseline}` with its {}% CI.\n",
            CONFIDENCE * 100.0
        );
        out.push_str(&header(&self.run_headers(&["profile", "durable"])));
        for p in &profiles {
            let key = BenchKey::new(&group, Some(p), None);
            let mut cells = vec![format!("`{}`", esc(p)), durable_cell(p).to_string()];
            cells.extend(self.slowdown_cells(&key));
            out.push_str(&row(&cells));
        }
        if with_floors {
            self.floor_rows(out);
        }
        let _ = writeln!(
            out,
            "\nOverhead vs `{REFERENCE_PROFILE}` on the same filesystem ({}% CI); it moves with \
             the host's hash speed, see the summary for the figure that does not:\n",
            CONFIDENCE * 100.0
        );
        out.push_str(&header(&self.run_headers(&["profile", "durable"])));
        for p in &profiles {
            let key = BenchKey::new(&group, Some(p), None);
            let mut cells = vec![format!("`{}`", esc(p)), durable_cell(p).to_string()];
            cells.extend(self.overhead_cells(&key));
            out.push_str(&row(&cells));
        }
        out.push('\n');
    }

    fn floors(&self, out: &mut String) {
        out.push_str("## Floors\n\n");
        out.push_str(
            "What no backend can beat on each filesystem: one 4 KiB write + fdatasync in the \
             directory under test (per-iteration time = latency), and SHA-512 over 8 KiB \
             (the trie hashes every node it writes); `triebench headline` or the kv benches measure \
             them. The 95% CI of the mean in brackets.\n\n",
        );
        out.push_str(&header(&self.run_headers(&["floor"])));
        for (name, label) in [
            (FLOOR_FSYNC, "fsync latency (`floor/fsync_4k`)"),
            (FLOOR_SHA512, "SHA-512 8 KiB (`floor/sha512_8k`)"),
        ] {
            let key = BenchKey::new("floor", Some(name), None);
            let mut cells = vec![label.to_string()];
            for run in self.results.run_names() {
                cells.push(match self.results.get(&run, &key) {
                    Some(m) => format!(
                        "{} [{}–{}]",
                        time_with_rate(m),
                        fmt::time_ns(m.mean.lower),
                        fmt::time_ns(m.mean.upper)
                    ),
                    None if self.run_present(&run) => MISSING.to_string(),
                    None => "run missing".to_string(),
                });
            }
            out.push_str(&row(&cells));
        }
        out.push('\n');
    }

    fn plot_links(&self, out: &mut String, filter: impl Fn(&PlotFile) -> bool) {
        for p in self.plots.iter().filter(|p| filter(p)) {
            let name = |path: &std::path::Path| {
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            };
            let _ = writeln!(
                out,
                "![{}]({})\n\n([SVG]({}), {}×{} px)\n",
                esc(&p.title),
                name(&p.png),
                name(&p.svg),
                p.size.0,
                p.size.1
            );
        }
    }

    /// Benchmarks outside the scenarios (scalable groups, raw kv operations).
    pub fn other_groups(&self, out: &mut String) {
        let groups = self.results.other_groups();
        if groups.is_empty() {
            return;
        }
        out.push_str("## Scalable and raw-backend benchmarks\n\n");
        let _ = writeln!(
            out,
            "Per group: time per iteration (and throughput when the bench declared one) on each \
             run; on the other runs also the slowdown vs `{}` with its {}% CI.\n",
            self.baseline(),
            CONFIDENCE * 100.0
        );
        for (group, keys) in groups {
            let durable = match keys.first().and_then(BenchKey::profile) {
                Some(p) => match profile_durable(&p) {
                    Some(true) => " — durable (fsync per commit)",
                    Some(false) => " — not durable",
                    None => "",
                },
                None => "",
            };
            let _ = writeln!(out, "### `{}`{durable}\n", esc(&group));
            out.push_str(&header(&self.run_headers(&["benchmark"])));
            for key in keys {
                let mut cells = vec![format!("`{}`", esc(&key.item()))];
                cells.extend(self.slowdown_cells(&key));
                out.push_str(&row(&cells));
            }
            out.push('\n');
        }
    }

    /// Whether any run measured the whole suite (`scenario/suite`).
    fn suite_measured(&self) -> bool {
        self.results.scenario_names().iter().any(|s| s == SUITE)
    }

    /// The headline: the whole suite, its plot and the floors.
    pub fn headline_sections(&self, out: &mut String) {
        if self.suite_measured() {
            out.push_str("## Whole suite (`scenario/suite`, the headline)\n\n");
            self.scenario_tables(out, SUITE, true);
        } else {
            out.push_str(
                "## Whole suite\n\n`scenario/suite` was not measured in any run \
                 (see Missing); the per-scenario tables follow.\n\n",
            );
        }
        self.plot_links(out, |p| p.svg.ends_with("slowdown.svg"));
        self.floors(out);
    }

    /// Every scenario but the suite, and the time-per-scenario plots.
    pub fn scenario_sections(&self, out: &mut String) {
        let headline = self.suite_measured();
        let scenarios = self.results.scenario_names();
        let rest: Vec<&String> = scenarios.iter().filter(|s| *s != SUITE).collect();
        if !rest.is_empty() {
            out.push_str("## Scenarios\n\n");
            for s in rest {
                let _ = writeln!(out, "### `scenario/{}`\n", esc(s));
                self.scenario_tables(out, s, !headline);
            }
        }
        if self.plots.iter().any(|p| !p.svg.ends_with("slowdown.svg")) {
            out.push_str("## Time per scenario\n\n");
            self.plot_links(out, |p| !p.svg.ends_with("slowdown.svg"));
        }
    }
}
