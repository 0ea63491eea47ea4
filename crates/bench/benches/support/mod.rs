//! Shared set-up for the criterion benches: run size, per-profile sampling, fresh stores under
//! `TMPDIR`, and a one-line description of the filesystem under test.

#![allow(dead_code)] // each bench uses a different part of this module

pub mod flamegraph;
pub mod fresh_stores;
pub mod idle;
pub mod run_env;

use std::path::PathBuf;
use std::sync::{Once, OnceLock};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode};
use regex::Regex;
use triebench_kv::Profile;

/// How big a run is: `TRIEBENCH_SCALE=quick|standard|full`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A few minutes for the whole bench set on 2 cores; what tests use.
    Quick,
    /// Transact's sizes.
    Standard,
    /// Ten times Transact's sizes.
    Full,
}

impl Scale {
    /// Reads `TRIEBENCH_SCALE` (default `standard`); an unknown value stops the bench with a
    /// message listing the valid ones.
    pub fn from_env() -> Scale {
        match std::env::var("TRIEBENCH_SCALE").as_deref() {
            Ok("quick") => Scale::Quick,
            Ok("standard") | Err(_) => Scale::Standard,
            Ok("full") => Scale::Full,
            Ok(other) => {
                eprintln!("TRIEBENCH_SCALE={other} is not one of quick, standard, full");
                std::process::exit(2);
            }
        }
    }

    /// Multiplies a Transact-sized count for this scale.
    pub fn size(self, standard: usize) -> usize {
        match self {
            Scale::Quick => (standard / 10).max(1),
            Scale::Standard => standard,
            Scale::Full => standard * 10,
        }
    }
}

/// Whether a profile pays for an fsync (or several) per commit: it gets fewer samples.
fn heavy(profile: Profile) -> bool {
    profile.fsyncs_each_commit()
}

/// Sets sample count and times on a group for `scale`, lighter for fsyncing profiles.
pub fn configure(group: &mut BenchmarkGroup<'_, WallTime>, scale: Scale, profile: Option<Profile>) {
    let heavy = profile.is_some_and(heavy);
    let (samples, warm, measure) = match (scale, heavy) {
        (Scale::Quick, _) => (10, 0.2, 1.0),
        (Scale::Standard, false) => (20, 0.5, 3.0),
        (Scale::Standard, true) => (10, 0.5, 3.0),
        (Scale::Full, false) => (30, 2.0, 10.0),
        (Scale::Full, true) => (10, 2.0, 10.0),
    };
    let samples = samples_override().unwrap_or(samples);
    group
        .sample_size(samples)
        .warm_up_time(Duration::from_secs_f64(warm))
        .measurement_time(Duration::from_secs_f64(measure));
}

/// Wall-clock budget of one scenario benchmark (`suite`: the whole-suite benchmark), set-up of
/// its fresh stores included.
fn run_budget(scale: Scale, suite: bool) -> Duration {
    let seconds = match (scale, suite) {
        (Scale::Quick, false) => 0.15,
        (Scale::Quick, true) => 0.6,
        (Scale::Standard, false) => 0.3,
        (Scale::Standard, true) => 1.5,
        (Scale::Full, false) => 2.0,
        (Scale::Full, true) => 10.0,
    };
    Duration::from_secs_f64(seconds)
}

/// Most samples a scenario benchmark takes when its runs are short.
const MAX_RUN_SAMPLES: u64 = 30;

/// Sets sampling for a benchmark whose every iteration opens (untimed) a fresh store: one
/// measured iteration took `timed`, `wall` with its set-up and clean-up.
///
/// Criterion sizes a run by measured time only, so set-up that costs more than the work (a
/// fresh redis-server per iteration of a 200 µs scenario) used to multiply its wall time many
/// times over. Here the number of iterations comes from a wall-clock budget ([`run_budget`]),
/// at least 10 (criterion's minimum samples) and each sample holds the same number of them
/// (flat sampling): a run of seconds is 10 samples of one iteration, a run of microseconds up to
/// [`MAX_RUN_SAMPLES`] samples of many. Warm-up is the one iteration already made.
/// `TRIEBENCH_SAMPLES` still fixes the sample count.
pub fn configure_runs(
    group: &mut BenchmarkGroup<'_, WallTime>,
    scale: Scale,
    suite: bool,
    timed: Duration,
    wall: Duration,
) {
    let budget = run_budget(scale, suite);
    let wall_ns = wall.as_nanos().max(1);
    let iterations = (budget.as_nanos() / wall_ns).clamp(10, 1 << 24) as u64;
    let samples = samples_override()
        .map(|n| n as u64)
        .unwrap_or(iterations.min(MAX_RUN_SAMPLES));
    let iterations = iterations.max(samples);
    let measure = timed
        .max(Duration::from_nanos(1))
        .saturating_mul(u32::try_from(iterations).unwrap_or(u32::MAX));
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(samples as usize)
        .warm_up_time(Duration::from_nanos(1))
        .measurement_time(measure);
}

/// Whether the groups outside the headline run: `TRIEBENCH_GROUPS=all` (the default at full
/// scale) adds the scalable groups (`scale/...`) and the raw backend operations (`kv/...`) to
/// the headline (`scenario/...`, `floor/...`), which `TRIEBENCH_GROUPS=headline` (the default at
/// quick and standard scale) runs alone. A `TRIEBENCH_FILTER` picks benchmarks by itself.
pub fn all_groups() -> bool {
    match std::env::var("TRIEBENCH_GROUPS").as_deref() {
        Ok("all") => true,
        Ok("headline") => false,
        Ok(other) if !other.is_empty() => {
            eprintln!("TRIEBENCH_GROUPS={other} is not one of headline, all");
            std::process::exit(2);
        }
        _ => Scale::from_env() == Scale::Full,
    }
}

/// Whether a benchmark outside the headline (`scale/...`, `kv/...`) runs: the filter decides
/// when one is given, else [`all_groups`].
pub fn extra_selected(id: &str) -> bool {
    match std::env::var("TRIEBENCH_FILTER") {
        Ok(text) if !text.is_empty() => selected(id),
        _ => all_groups(),
    }
}

/// `TRIEBENCH_SAMPLES=N` (N ≥ 10, criterion's minimum): every group takes N samples, e.g. 10
/// to bound a run on slow (emulated network) storage; an invalid value stops the bench.
fn samples_override() -> Option<usize> {
    let text = std::env::var("TRIEBENCH_SAMPLES").ok()?;
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 10 => Some(n),
        _ => {
            eprintln!("TRIEBENCH_SAMPLES={text} is not a whole number of at least 10");
            std::process::exit(2);
        }
    }
}

/// Whether criterion will run the benchmark `id` (`group/function/value`) under the filter
/// scripts/bench-fs.sh passes it, `TRIEBENCH_FILTER` (a regex matched anywhere in the id, as
/// criterion does); lets a bench skip set-up for benchmarks that will not run.
pub fn selected(id: &str) -> bool {
    static FILTER: OnceLock<Option<Regex>> = OnceLock::new();
    let filter = FILTER.get_or_init(|| {
        let text = std::env::var("TRIEBENCH_FILTER").ok()?;
        if text.is_empty() {
            return None;
        }
        match Regex::new(&text) {
            Ok(re) => Some(re),
            Err(e) => {
                eprintln!("TRIEBENCH_FILTER={text} is not a regular expression: {e}");
                std::process::exit(2);
            }
        }
    });
    filter.as_ref().is_none_or(|re| re.is_match(id))
}

/// The profiles this build includes, optionally narrowed by `TRIEBENCH_PROFILES=a,b,...`.
pub fn profiles() -> Vec<Profile> {
    let all = Profile::enabled();
    match std::env::var("TRIEBENCH_PROFILES") {
        Ok(list) if !list.trim().is_empty() => {
            let mut chosen = Vec::new();
            for name in list.split(',').map(str::trim) {
                match name.parse::<Profile>() {
                    Ok(p) if all.contains(&p) => chosen.push(p),
                    Ok(p) => eprintln!("TRIEBENCH_PROFILES: {p} is not built in; skipped"),
                    Err(e) => {
                        eprintln!("TRIEBENCH_PROFILES: {e}");
                        std::process::exit(2);
                    }
                }
            }
            chosen
        }
        _ => all,
    }
}

/// The baseline criterion was asked to save (`--save-baseline NAME` or `--save-baseline=NAME`).
fn saved_baseline() -> Option<String> {
    let mut args = std::env::args();
    while let Some(arg) = args.next() {
        if arg == "--save-baseline" {
            return args.next();
        }
        if let Some(name) = arg.strip_prefix("--save-baseline=") {
            return Some(name.to_string());
        }
    }
    None
}

/// Whether criterion measures (`cargo bench` passes `--bench`) rather than running each benchmark
/// once to check it (`cargo test --benches`): set-up that only sizes a measurement can be skipped.
pub fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// A fresh directory under `TMPDIR` for one measurement's store; removed on drop.
pub fn fresh_dir() -> tempfile::TempDir {
    match tempfile::Builder::new().prefix("triebench-").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!(
                "cannot create a directory under TMPDIR={}: {e}",
                std::env::temp_dir().display()
            );
            std::process::exit(2);
        }
    }
}

/// What every bench's `main` does before criterion runs: gives criterion's HTML plots a font,
/// and holds idle CPUs as `TRIEBENCH_CPU_IDLE` asks for as long as the returned guard lives.
///
/// The font: the workspace turns on plotters' `ab_glyph` text renderer for its own charts (no
/// system font library needed), cargo unifies that feature into criterion's plotters, and that
/// renderer draws text only in fonts registered with it. A bench that drew a plot before
/// registering one stopped with `FontError(FontUnavailable)`.
#[must_use = "idle CPUs are held only while the guard lives"]
pub fn begin() -> impl Sized {
    if !triebench_report::render::font::ensure_registered() {
        eprintln!("triebench: could not register the embedded font; criterion plots may fail");
    }
    let idle = idle::hold();
    run_env::record(idle.record());
    idle
}

/// Prints, once per bench binary, which filesystem `TMPDIR` is on.
pub fn announce_filesystem() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let dir: PathBuf = std::env::temp_dir();
        match triebench_measure::fs_info_for_dir("TMPDIR", &dir) {
            Ok(fs) => eprintln!(
                "triebench: TMPDIR={} is on {} (type {}, mounted at {}, options {}), scale {:?}",
                dir.display(),
                fs.device,
                fs.fs_type,
                fs.mount_point,
                fs.mount_options,
                Scale::from_env()
            ),
            Err(e) => eprintln!(
                "triebench: TMPDIR={} (filesystem unknown: {e})",
                dir.display()
            ),
        }
    });
}
