//! Shared set-up for the criterion benches: run size, per-profile sampling, fresh stores under
//! `TMPDIR`, and a one-line description of the filesystem under test.

#![allow(dead_code)] // each bench uses a different part of this module

use std::path::PathBuf;
use std::sync::{Once, OnceLock};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
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

/// Prints, once per bench binary, which filesystem `TMPDIR` is on, and gives criterion's HTML
/// plots a font (the workspace's plotters renders text only with registered fonts).
pub fn announce_filesystem() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if !triebench_report::render::font::ensure_registered() {
            eprintln!("triebench: could not register the embedded font; criterion plots may fail");
        }
        let dir: PathBuf = std::env::temp_dir();
        match triebench_report::fs_info_for_dir("TMPDIR", &dir) {
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
