//! The runs of a network study into [`NetRuns`]: under a results folder, every headline run
//! record (`headline.json`, its `net` saying the distance) and every `load.json`, up to four
//! levels down ([`read_net_runs`], for `triebench net-report`); or the headline records of a
//! report's runs in a criterion directory ([`read_report_runs`], for `triebench report`).

use std::path::{Path, PathBuf};

use triebench_record::layout::record_path;
use triebench_record::load::LOAD_FILE;
use triebench_record::net::NetRecord;
use triebench_record::{RunRecord, Unit};

use crate::error::ReportError;
use crate::model::net::{series_of, Distance, NetHeadline, NetLoad, NetRuns};
use crate::read::load_runs::read_load_file;

/// The headline's record file name.
const HEADLINE_FILE: &str = "headline.json";

/// Levels below the folder searched.
const DEPTH: u32 = 4;

fn files(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        // Never follow a symbolic link out of the folder.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() && depth > 0 {
            files(&path, depth - 1, out);
        } else if meta.is_file()
            && path
                .file_name()
                .is_some_and(|n| n == HEADLINE_FILE || n == LOAD_FILE)
        {
            out.push(path);
        }
    }
}

fn distance(net: Option<&NetRecord>) -> Distance {
    match net {
        None => Distance::Direct,
        Some(n) => Distance::Proxied(n.rtt_us),
    }
}

/// The folder of `file`, relative to `dir` (`.` for the folder itself).
fn source(dir: &Path, file: &Path) -> String {
    let parent = file.parent().unwrap_or(dir);
    match parent.strip_prefix(dir) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => parent.display().to_string(),
    }
}

/// Mean time per iteration of the benchmark `group`/`function`, ns.
fn mean(record: &RunRecord, group: &str, function: &str) -> Option<f64> {
    let b = record
        .benchmarks
        .iter()
        .find(|b| b.group == group && b.function == function)?;
    let (total, iterations) = b.samples.iter().fold((0.0, 0u64), |(t, n), s| {
        (t + s.total, n.saturating_add(s.iterations))
    });
    let ns = match b.unit {
        Unit::Ns => total,
    };
    (iterations > 0).then(|| ns / iterations as f64)
}

/// Reads every headline record and load file under `dir`. A file that cannot be read or breaks
/// its format is an error naming it.
pub fn read_net_runs(dir: &Path) -> Result<NetRuns, ReportError> {
    let mut found = Vec::new();
    files(dir, DEPTH, &mut found);
    let found = found
        .into_iter()
        .map(|file| (source(dir, &file), file))
        .collect();
    read_files(found)
}

/// The headline records of `runs` in `criterion_dir` (`triebench headline --run NAME`), each
/// named by its run, when at least one of them was taken through the delay proxy
/// (`--net-rtt`): then a report of those runs shows time against distance. `None` when no run
/// has a headline record or none went through the proxy. A record that cannot be read is an
/// error naming it.
pub fn read_report_runs(
    criterion_dir: &Path,
    runs: &[String],
) -> Result<Option<NetRuns>, ReportError> {
    let found = runs
        .iter()
        .map(|run| (run.clone(), record_path(criterion_dir, run, "headline")))
        .filter(|(_, file)| file.is_file())
        .collect();
    let net = read_files(found)?;
    let proxied = net
        .headline
        .iter()
        .any(|h| matches!(h.distance, Distance::Proxied(_)));
    Ok(proxied.then_some(net))
}

/// Reads each `(source, file)`: a headline record or a load file, `source` naming where it
/// came from (its folder, or its run).
fn read_files(found: Vec<(String, PathBuf)>) -> Result<NetRuns, ReportError> {
    let mut runs = NetRuns::default();
    for (from, file) in found {
        if file.file_name().is_some_and(|n| n == LOAD_FILE) {
            let load = read_load_file(&file)?;
            runs.load.push(NetLoad {
                series: series_of(&from, 2),
                source: from,
                distance: distance(load.env.net.as_ref()),
                profile: load.config.backend.clone(),
                offered: load.headline.rate,
                commits_per_sec: load.commit.per_sec,
                p50_us: load.commit.p50_us,
                p99_us: load.commit.p99_us,
                readers: load.headline.readers,
            });
            continue;
        }
        let Some(record) = RunRecord::read(&file)? else {
            continue;
        };
        let mut profiles: Vec<&str> = record
            .benchmarks
            .iter()
            .filter(|b| b.group == "scenario/suite")
            .map(|b| b.function.as_str())
            .collect();
        profiles.dedup();
        for profile in profiles {
            runs.headline.push(NetHeadline {
                source: from.clone(),
                series: series_of(&from, 1),
                distance: distance(record.net.as_ref()),
                profile: profile.to_string(),
                suite_ns: mean(&record, "scenario/suite", profile),
                update_per_commit_ns: mean(&record, "scenario/update", profile)
                    .map(|ns| ns / f64::from(triebench_record::vocabulary::UPDATE_KEYS)),
                floor_per_commit_ns: mean(&record, "floor/commit", profile),
            });
        }
    }
    Ok(runs)
}
