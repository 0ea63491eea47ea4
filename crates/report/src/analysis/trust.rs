//! What in a report's own data a careful reader would not trust, found so the report can say
//! it first ("Can these figures be trusted?"): each flag is typed, and carries the command that
//! measures its row again.
//!
//! Checked on the headline's benchmarks (`scenario/*` of triebench's own profiles, `floor/*`,
//! `floor/commit/*`), their ratios and each profile's above-floor:
//!
//! - [`Anomaly::Inversion`]: a profile faster on the slower filesystem beyond its interval. The
//!   slower filesystem is the one whose `floor/fsync_4k` is slower (the baseline, when either run
//!   lacks it); the ratio run ÷ baseline has its whole interval on the wrong side of 1. `btree`
//!   is not checked: it never touches the filesystem.
//! - [`Anomaly::NegativeAboveFloor`]: `update`'s commit costs less than its own storage floor.
//! - [`Anomaly::WideMean`], [`Anomaly::WideRatio`]: an interval reaching further than
//!   ±[`WIDE`] of its point; a ratio only when neither of its means is flagged itself.
//! - [`Anomaly::FewSamples`]: fewer than [`MIN_SAMPLES`] samples behind a mean.
//! - [`Anomaly::BusyHost`]: a stretch of a run during which other processes used, or the
//!   hypervisor stole, more than [`BUSY_SHARE`] of the machine's CPU time.

use crate::analysis::above_floor::{above_floor, AboveFloor};
use crate::analysis::ratios::{Comparison, Ratios, Status};
use crate::model::bench_id::{
    split_implementation, BenchKey, BenchKind, FLOOR_FSYNC, OURS, REFERENCE_PROFILE,
};
use crate::model::results::{Estimate, ResultSet, RunResults};

/// How far an interval may reach from its point, as a share of it, before it is flagged.
pub const WIDE: f64 = 0.25;

/// The fewest samples a mean may rest on without a flag.
pub const MIN_SAMPLES: usize = 10;

/// The share of all CPU time others may take (used or stolen) during a stretch of a run
/// without a flag.
pub const BUSY_SHARE: f64 = 0.10;

/// One thing in the data that does not hold up.
#[derive(Debug, Clone, PartialEq)]
pub enum Anomaly {
    /// `run` ÷ `baseline` of `key` lies wholly below 1 while `run` is the slower filesystem
    /// (or wholly above 1 while it is the faster one).
    Inversion {
        /// The run compared.
        run: String,
        /// The baseline run.
        baseline: String,
        /// The benchmark.
        key: BenchKey,
        /// Whether `run` is the slower filesystem.
        run_slower: bool,
        /// The ratio and its interval.
        ratio: f64,
        /// Its interval's lower bound.
        low: f64,
        /// Its interval's upper bound.
        high: f64,
    },
    /// `profile`'s `update` commit on `run` costs less than its storage floor.
    NegativeAboveFloor {
        /// The run.
        run: String,
        /// The profile.
        profile: String,
        /// Floor, update and above with its interval.
        above: AboveFloor,
    },
    /// A mean whose interval reaches further than ±[`WIDE`] of it.
    WideMean {
        /// The run.
        run: String,
        /// The benchmark.
        key: BenchKey,
        /// The mean with its interval.
        mean: Estimate,
    },
    /// A ratio whose interval reaches further than ±[`WIDE`] of it.
    WideRatio {
        /// What it compares.
        comparison: Comparison,
        /// The run of its numerator.
        run: String,
        /// The run of its denominator.
        reference_run: String,
        /// The benchmark of its numerator.
        key: BenchKey,
        /// The ratio.
        ratio: f64,
        /// Its interval's lower bound.
        low: f64,
        /// Its interval's upper bound.
        high: f64,
    },
    /// A mean resting on fewer than [`MIN_SAMPLES`] samples.
    FewSamples {
        /// The run.
        run: String,
        /// The benchmark.
        key: BenchKey,
        /// How many.
        samples: usize,
    },
    /// Others took more than [`BUSY_SHARE`] of the CPU during a stretch of `run`.
    BusyHost {
        /// The run.
        run: String,
        /// The stretch (a profile, or `floors`).
        what: String,
        /// Share of CPU time other processes used.
        others: f64,
        /// Share stolen by the hypervisor.
        steal: f64,
        /// One-minute load average at the stretch's end.
        load_1m: f64,
    },
}

/// An anomaly with the command that measures its row again.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    /// What was found.
    pub anomaly: Anomaly,
    /// Commands (joined with `&&`) that retake the row into fresh run names and report it.
    pub rerun: String,
}

impl Anomaly {
    /// The profile the anomaly is about, when it is about one.
    pub fn profile(&self) -> Option<String> {
        match self {
            Anomaly::Inversion { key, .. }
            | Anomaly::WideMean { key, .. }
            | Anomaly::WideRatio { key, .. }
            | Anomaly::FewSamples { key, .. } => key.profile(),
            Anomaly::NegativeAboveFloor { profile, .. } => Some(profile.clone()),
            Anomaly::BusyHost { what, .. } => Some(what.clone()),
        }
    }
}

/// Whether `key` is one of the headline's benchmarks of triebench itself.
fn checked(key: &BenchKey) -> bool {
    match key.kind() {
        BenchKind::Scenario { profile, .. } => split_implementation(&profile).0 == OURS,
        BenchKind::Floor { .. } | BenchKind::CommitFloor { .. } => true,
        BenchKind::Profiled { .. } | BenchKind::Other => false,
    }
}

/// Whether `e`'s interval reaches further than ±[`WIDE`] of its point.
fn wide(point: f64, low: f64, high: f64) -> bool {
    point.is_finite() && point > 0.0 && (high > point * (1.0 + WIDE) || low < point * (1.0 - WIDE))
}

/// Every anomaly of `results` and `ratios`, each with its rerun command naming
/// `criterion_dir`; in order: load, inversions, negative above-floors, wide intervals, few
/// samples.
pub fn find(results: &ResultSet, ratios: &Ratios, criterion_dir: &str) -> Vec<Flag> {
    let rerun = Rerun {
        results,
        criterion_dir,
    };
    let mut out = Vec::new();
    let present: Vec<&RunResults> = results.runs.iter().filter(|r| r.present).collect();
    for run in &present {
        let Some(load) = &run.host_load else { continue };
        for span in &load.spans {
            if span.others() > BUSY_SHARE || span.steal > BUSY_SHARE {
                let profile = (span.what != "floors").then_some(span.what.as_str());
                out.push(Flag {
                    anomaly: Anomaly::BusyHost {
                        run: run.name.clone(),
                        what: span.what.clone(),
                        others: span.others(),
                        steal: span.steal,
                        load_1m: span.load_1m,
                    },
                    rerun: rerun.one(&run.name, profile),
                });
            }
        }
    }
    let baseline = results.baseline().filter(|b| b.present);
    let fsync = |run: &str| {
        results
            .get(run, &BenchKey::new("floor", Some(FLOOR_FSYNC), None))
            .map(|m| m.mean.point)
    };
    if let Some(base) = baseline {
        for row in ratios
            .rows
            .iter()
            .filter(|r| r.comparison == Comparison::SlowdownVsBaseline && r.status == Status::Ok)
        {
            let key = BenchKey::new(&row.group, row.function.as_deref(), row.value.as_deref());
            let BenchKind::Scenario { profile, .. } = key.kind() else {
                continue;
            };
            if !checked(&key) || profile == REFERENCE_PROFILE {
                continue;
            }
            let (Some(x), Some(lo), Some(hi)) = (row.ratio, row.ci_low, row.ci_high) else {
                continue;
            };
            let run_slower = match (fsync(&row.run), fsync(&base.name)) {
                (Some(r), Some(b)) => r >= b,
                _ => true,
            };
            if (run_slower && hi < 1.0) || (!run_slower && lo > 1.0) {
                out.push(Flag {
                    rerun: rerun.pair(&base.name, &row.run, &profile),
                    anomaly: Anomaly::Inversion {
                        run: row.run.clone(),
                        baseline: base.name.clone(),
                        key,
                        run_slower,
                        ratio: x,
                        low: lo,
                        high: hi,
                    },
                });
            }
        }
    }
    for run in &present {
        for profile in results.scenario_profiles() {
            if split_implementation(&profile).0 != OURS {
                continue;
            }
            if let Some(a) = above_floor(results, &run.name, &profile) {
                if a.below_floor() {
                    out.push(Flag {
                        rerun: rerun.one(&run.name, Some(&profile)),
                        anomaly: Anomaly::NegativeAboveFloor {
                            run: run.name.clone(),
                            profile,
                            above: a,
                        },
                    });
                }
            }
        }
    }
    let mut wide_means = Vec::new();
    for run in &present {
        for (key, m) in run.benches.iter().filter(|(k, _)| checked(k)) {
            if wide(m.mean.point, m.mean.lower, m.mean.upper) {
                wide_means.push((run.name.clone(), key.clone()));
                out.push(Flag {
                    rerun: rerun.one(&run.name, key.profile().as_deref()),
                    anomaly: Anomaly::WideMean {
                        run: run.name.clone(),
                        key: key.clone(),
                        mean: m.mean,
                    },
                });
            }
        }
    }
    for row in ratios.rows.iter().filter(|r| r.status == Status::Ok) {
        let key = BenchKey::new(&row.group, row.function.as_deref(), row.value.as_deref());
        if !matches!(key.kind(), BenchKind::Scenario { .. }) || !checked(&key) {
            continue;
        }
        let (Some(x), Some(lo), Some(hi)) = (row.ratio, row.ci_low, row.ci_high) else {
            continue;
        };
        let reference_key = match (row.comparison, &row.reference_profile) {
            (Comparison::OverheadVsBtree, Some(p)) => key.with_profile(p),
            _ => Some(key.clone()),
        };
        let side_wide =
            |run: &str, k: &BenchKey| wide_means.iter().any(|(r, wk)| r == run && wk == k);
        if side_wide(&row.run, &key)
            || reference_key.is_some_and(|k| side_wide(&row.reference_run, &k))
            || !wide(x, lo, hi)
        {
            continue;
        }
        let profile = key.profile().unwrap_or_default();
        let rerun_cmd = match row.comparison {
            Comparison::SlowdownVsBaseline => rerun.pair(&row.reference_run, &row.run, &profile),
            Comparison::OverheadVsBtree => {
                rerun.one(&row.run, Some(&format!("{REFERENCE_PROFILE},{profile}")))
            }
        };
        out.push(Flag {
            rerun: rerun_cmd,
            anomaly: Anomaly::WideRatio {
                comparison: row.comparison,
                run: row.run.clone(),
                reference_run: row.reference_run.clone(),
                key,
                ratio: x,
                low: lo,
                high: hi,
            },
        });
    }
    for run in &present {
        for (key, m) in run.benches.iter().filter(|(k, _)| checked(k)) {
            if m.per_iter_ns.len() < MIN_SAMPLES {
                out.push(Flag {
                    rerun: rerun.one(&run.name, key.profile().as_deref()),
                    anomaly: Anomaly::FewSamples {
                        run: run.name.clone(),
                        key: key.clone(),
                        samples: m.per_iter_ns.len(),
                    },
                });
            }
        }
    }
    out
}

/// Builds the commands that measure a row again: a headline into a fresh run name
/// (`<run>-recheck`, so the run reported stays as it was), then its report.
struct Rerun<'a> {
    results: &'a ResultSet,
    criterion_dir: &'a str,
}

/// The suffix of a rerun's run name.
pub const RECHECK: &str = "-recheck";

impl Rerun<'_> {
    /// The directory `run` measured (its filesystem record's), or a placeholder.
    fn dir(&self, run: &str) -> String {
        self.results
            .runs
            .iter()
            .find(|r| r.name == run)
            .and_then(|r| r.fs.as_ref())
            .map(|f| shell_word(user_dir(&f.dir)))
            .unwrap_or_else(|| format!("<a directory on {run}'s filesystem>"))
    }

    fn headline(&self, run: &str, profiles: Option<&str>) -> String {
        // `floors` are measured by every headline; `btree` is the quickest profile to ask for.
        let profiles = profiles.unwrap_or(REFERENCE_PROFILE);
        format!(
            "triebench headline --dir {} --run {run}{RECHECK} --profiles {profiles} \
             --criterion-dir {}",
            self.dir(run),
            shell_word(self.criterion_dir)
        )
    }

    /// Retakes `profiles` (comma-separated; `None`: the floors only) on `run` and reports it.
    fn one(&self, run: &str, profiles: Option<&str>) -> String {
        format!(
            "{} && triebench report --baseline {run}{RECHECK} --runs {run}{RECHECK} \
             --criterion-dir {}",
            self.headline(run, profiles),
            shell_word(self.criterion_dir)
        )
    }

    /// Retakes `profile` on both runs of a ratio and reports one against the other.
    fn pair(&self, baseline: &str, run: &str, profile: &str) -> String {
        format!(
            "{} && {} && triebench report --baseline {baseline}{RECHECK} --runs {run}{RECHECK} \
             --criterion-dir {}",
            self.headline(baseline, Some(profile)),
            self.headline(run, Some(profile)),
            shell_word(self.criterion_dir)
        )
    }
}

/// The directory a user named for a run: `triebench bench` measures in a temporary
/// `triebench-run.*` folder inside it, gone once the run ends, so a rerun names its parent.
fn user_dir(dir: &str) -> &str {
    match dir.rsplit_once('/') {
        Some((parent, last)) if last.starts_with("triebench-run.") && !parent.is_empty() => parent,
        _ => dir,
    }
}

/// `text` as one shell word: as it is when it holds only safe characters, else single-quoted.
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:,=@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ratios;
    use crate::model::bench_id::FLOOR_COMMIT_GROUP;
    use crate::model::results::Measurement;
    use triebench_record::vocabulary::UPDATE_KEYS;
    use triebench_record::{HostLoad, LoadSpan};

    /// A measurement of `n` samples spread ±`spread` (a share) around `mean`, its interval the
    /// normal approximation a run record gets.
    fn m(mean: f64, spread: f64, n: usize) -> Measurement {
        let xs: Vec<f64> = (0..n)
            .map(|i| {
                let t = if n > 1 {
                    i as f64 / (n - 1) as f64 * 2.0 - 1.0
                } else {
                    0.0
                };
                mean * (1.0 + spread * t)
            })
            .collect();
        let b = triebench_record::Benchmark::ns(
            "g",
            "f",
            None,
            xs.iter()
                .map(|&x| triebench_record::Sample::one(x))
                .collect(),
        );
        crate::read::run_records::measurement(&b)
    }

    fn run(name: &str, benches: Vec<(BenchKey, Measurement)>) -> RunResults {
        RunResults {
            name: name.into(),
            present: true,
            fs: None,
            cpu_idle: None,
            host: None,
            host_load: None,
            benches: benches.into_iter().collect(),
        }
    }

    fn scenario(s: &str, p: &str) -> BenchKey {
        BenchKey::new(&format!("scenario/{s}"), Some(p), None)
    }

    /// A clean pair of runs: tmpfs (fast fsync) and disk (slow fsync), lmdb and btree, every
    /// interval tight, ten samples each, above-floor positive.
    fn clean() -> ResultSet {
        let k = f64::from(UPDATE_KEYS);
        let runs = [("tmpfs", 1.0, 1_000.0), ("disk", 2.0, 60_000.0)]
            .into_iter()
            .map(|(name, slow, fsync)| {
                run(
                    name,
                    vec![
                        (scenario("suite", "btree"), m(40e6, 0.02, 10)),
                        (scenario("suite", "lmdb"), m(100e6 * slow, 0.02, 10)),
                        (scenario("update", "btree"), m(30e3 * k, 0.02, 10)),
                        (scenario("update", "lmdb"), m(90e3 * slow * k, 0.02, 10)),
                        (
                            BenchKey::new(FLOOR_COMMIT_GROUP, Some("btree"), None),
                            m(5e3, 0.02, 10),
                        ),
                        (
                            BenchKey::new(FLOOR_COMMIT_GROUP, Some("lmdb"), None),
                            m(30e3 * slow, 0.02, 10),
                        ),
                        (
                            BenchKey::new("floor", Some(FLOOR_FSYNC), None),
                            m(fsync, 0.02, 10),
                        ),
                    ],
                )
            })
            .collect();
        ResultSet {
            runs,
            available: vec![],
        }
    }

    fn flags(results: &ResultSet) -> Vec<Flag> {
        let r = ratios::compute(results, 500);
        find(results, &r, "/crit")
    }

    fn set(results: &mut ResultSet, run: &str, key: BenchKey, m: Measurement) {
        let r = results.runs.iter_mut().find(|r| r.name == run).unwrap();
        r.benches.insert(key, m);
    }

    #[test]
    fn a_clean_record_flags_nothing() {
        assert_eq!(flags(&clean()), vec![]);
    }

    #[test]
    fn a_profile_faster_on_the_slower_filesystem_is_flagged_with_both_runs_to_retake() {
        let mut r = clean();
        set(
            &mut r,
            "tmpfs",
            scenario("empty_changes", "lmdb"),
            m(488e3, 0.02, 10),
        );
        set(
            &mut r,
            "disk",
            scenario("empty_changes", "lmdb"),
            m(27e3, 0.02, 10),
        );
        let f = flags(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        let Anomaly::Inversion {
            run,
            ratio,
            high,
            run_slower,
            ..
        } = &f[0].anomaly
        else {
            panic!("{f:?}")
        };
        assert_eq!(run, "disk");
        assert!(*run_slower && *high < 1.0 && (*ratio - 27.0 / 488.0).abs() < 1e-3);
        assert!(f[0].rerun.contains("--run tmpfs-recheck --profiles lmdb"));
        assert!(f[0].rerun.contains("--run disk-recheck --profiles lmdb"));
        assert!(f[0]
            .rerun
            .contains("triebench report --baseline tmpfs-recheck --runs disk-recheck"));
        // btree never touches the filesystem: the same on it is not flagged.
        let mut r = clean();
        set(
            &mut r,
            "tmpfs",
            scenario("empty_changes", "btree"),
            m(488e3, 0.02, 10),
        );
        set(
            &mut r,
            "disk",
            scenario("empty_changes", "btree"),
            m(27e3, 0.02, 10),
        );
        assert_eq!(flags(&r), vec![]);
    }

    #[test]
    fn an_update_below_its_floor_is_flagged() {
        let mut r = clean();
        set(
            &mut r,
            "disk",
            BenchKey::new(FLOOR_COMMIT_GROUP, Some("lmdb"), None),
            m(886e3, 0.02, 10),
        );
        let f = flags(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(matches!(
            &f[0].anomaly,
            Anomaly::NegativeAboveFloor { run, profile, above }
                if run == "disk" && profile == "lmdb" && above.above.point < 0.0
        ));
        assert!(f[0]
            .rerun
            .starts_with("triebench headline --dir <a directory on disk"));
    }

    #[test]
    fn a_wide_mean_is_flagged_once_and_not_again_through_its_ratios() {
        let mut r = clean();
        set(&mut r, "disk", scenario("suite", "lmdb"), m(200e6, 0.9, 10));
        let f = flags(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(matches!(&f[0].anomaly, Anomaly::WideMean { run, .. } if run == "disk"));
    }

    #[test]
    fn a_wide_ratio_of_two_tight_enough_means_is_flagged() {
        // Two means each within ±25%, whose ratio's interval is wider than ±25%.
        let mut r = clean();
        set(
            &mut r,
            "tmpfs",
            scenario("delete", "lmdb"),
            m(100e3, 0.55, 10),
        );
        set(
            &mut r,
            "disk",
            scenario("delete", "lmdb"),
            m(200e3, 0.55, 10),
        );
        let f = flags(&r);
        assert!(
            f.iter().any(
                |f| matches!(&f.anomaly, Anomaly::WideRatio { comparison, .. }
                if *comparison == Comparison::SlowdownVsBaseline)
            ),
            "{f:?}"
        );
        assert!(
            !f.iter()
                .any(|f| matches!(f.anomaly, Anomaly::WideMean { .. })),
            "{f:?}"
        );
    }

    #[test]
    fn fewer_than_ten_samples_are_flagged() {
        let mut r = clean();
        set(
            &mut r,
            "tmpfs",
            scenario("suite", "lmdb"),
            m(100e6, 0.02, 3),
        );
        let f = flags(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(matches!(
            &f[0].anomaly,
            Anomaly::FewSamples { samples: 3, run, .. } if run == "tmpfs"
        ));
        assert!(f[0].rerun.contains("--profiles lmdb"));
    }

    #[test]
    fn a_busy_stretch_is_flagged_and_a_quiet_one_is_not() {
        let mut r = clean();
        let span = |what: &str, busy: f64| LoadSpan {
            what: what.into(),
            seconds: 3.0,
            load_1m: 2.0,
            steal: 0.0,
            busy,
            own: 0.5,
        };
        r.runs[0].host_load = Some(HostLoad {
            cores: 2,
            spans: vec![span("floors", 0.55), span("lmdb", 0.9)],
        });
        let f = flags(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(matches!(&f[0].anomaly, Anomaly::BusyHost { what, .. } if what == "lmdb"));
    }

    #[test]
    fn a_bench_run_s_temporary_folder_is_rerun_in_the_folder_the_user_named() {
        assert_eq!(user_dir("/mnt/efs/triebench-run.fa2NoP"), "/mnt/efs");
        assert_eq!(user_dir("/mnt/efs/mine"), "/mnt/efs/mine");
        assert_eq!(user_dir("/triebench-run.x"), "/triebench-run.x");
    }

    #[test]
    fn odd_paths_are_quoted_for_the_shell() {
        assert_eq!(shell_word("/tmp/a-b_c.d"), "/tmp/a-b_c.d");
        assert_eq!(shell_word("/tmp/a b"), "'/tmp/a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
