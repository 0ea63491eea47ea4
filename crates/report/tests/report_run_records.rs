//! Run records (what `triebench headline` writes, `triebench-record`'s format) read as runs: a
//! report of two recorded runs has their slowdowns and the versions the records name, a run
//! record and criterion's output of one run merge (the record winning where both name a
//! benchmark), runs taken through the delay proxy (`--net-rtt`) add the section of time against
//! distance, and a record that breaks the format fails the report naming its file.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_record::{Benchmark, Environment, HostInfo, RunRecord, Sample, Versions};
use triebench_report::{run_report, CriterionIndex, ReportArgs, ReportError};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion")
}

fn environment() -> Environment {
    let text = |s: &str| s.to_string();
    Environment {
        host: HostInfo {
            hostname: text("recorder"),
            cpu_model: text("a CPU"),
            cores: 2,
            physical_cores: Some(1),
            ram_bytes: Some(1 << 30),
            kernel: text("6.1"),
            os: text("linux x86_64"),
        },
        versions: Versions {
            sqlite: text("3.99.0"),
            lmdb: text("LMDB 0.9.99"),
            redis_server: text("not found"),
            triebench: text("0.1.0"),
            git_commit: text("abc"),
            git_dirty: Some(false),
        },
    }
}

/// A headline record of `run`: the suite on btree and lmdb, ten one-iteration samples each
/// around `scale` times a base time.
fn record(run: &str, scale: f64) -> RunRecord {
    let mut r = RunRecord::new(
        run,
        "headline",
        "2026-11-25T00:00:00Z".into(),
        environment(),
    );
    for (profile, base) in [("btree", 1.0e6), ("lmdb", 2.0e6)] {
        let samples = (0..10)
            .map(|i| Sample::one(scale * base * (1.0 + 0.01 * i as f64)))
            .collect();
        r.benchmarks.push(Benchmark::ns(
            "scenario/suite",
            profile,
            Some(profile),
            samples,
        ));
    }
    r
}

fn args(crit: &Path, out: &Path, baseline: &str, runs: &[&str]) -> ReportArgs {
    ReportArgs {
        baseline: baseline.into(),
        runs: runs.iter().map(|r| r.to_string()).collect(),
        out: Some(out.to_path_buf()),
        criterion_dir: Some(crit.to_path_buf()),
        label: None,
        results_root: out.to_path_buf(),
    }
}

#[test]
fn recorded_runs_are_reported_with_their_slowdowns_and_versions() {
    let crit = tempfile::tempdir().unwrap();
    record("fast", 1.0).write(crit.path()).unwrap();
    record("slow", 3.0).write(crit.path()).unwrap();
    // Beside the criterion directory: a report is never written inside its input.
    let out_root = tempfile::tempdir().unwrap();
    let out = out_root.path().join("out");
    run_report(&args(crit.path(), &out, "fast", &[])).unwrap();
    let ratios: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ratios.json")).unwrap()).unwrap();
    let rows = ratios["rows"].as_array().unwrap();
    for profile in ["btree", "lmdb"] {
        let row = rows
            .iter()
            .find(|r| {
                r["benchmark"] == format!("scenario/suite/{profile}")
                    && r["run"] == "slow"
                    && r["reference_run"] == "fast"
            })
            .unwrap_or_else(|| panic!("the slowdown of {profile}: {rows:?}"));
        let ratio = row["ratio"].as_f64().unwrap();
        assert!((ratio - 3.0).abs() < 1e-9, "{profile}: {ratio}");
    }
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("env.json")).unwrap()).unwrap();
    assert_eq!(env["versions"]["sqlite"], "3.99.0");
    assert_eq!(env["versions"]["lmdb"], "LMDB 0.9.99");
}

#[test]
fn runs_through_the_delay_proxy_are_drawn_against_their_round_trip() {
    let crit = tempfile::tempdir().unwrap();
    record("direct", 1.0).write(crit.path()).unwrap();
    let mut far = record("rtt-1ms", 2.5);
    far.net = Some(triebench_record::net::NetRecord {
        rtt_us: 1000.0,
        jitter_us: 0.0,
        bandwidth_bytes_per_s: None,
    });
    far.write(crit.path()).unwrap();
    record("again", 1.1).write(crit.path()).unwrap();
    let out_root = tempfile::tempdir().unwrap();

    let out = out_root.path().join("net");
    run_report(&args(crit.path(), &out, "direct", &["rtt-1ms"])).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Time against distance to the database server"),
        "{md}"
    );
    let row = md
        .lines()
        .find(|l| l.starts_with("| `lmdb` |") && l.contains("| 1 ms |"))
        .unwrap_or_else(|| panic!("no 1 ms row of lmdb in\n{md}"));
    assert!(row.contains("| 2.50 |"), "2.5x its direct run: {row}");
    assert!(out.join("plots/net-suite.svg").is_file());

    let out = out_root.path().join("direct");
    run_report(&args(crit.path(), &out, "direct", &["again"])).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("Time against distance"), "{md}");
}

#[test]
fn a_record_and_criterion_output_of_one_run_merge_and_the_record_wins() {
    let crit = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), crit.path());
    let before = CriterionIndex::open(crit.path()).unwrap();
    let criterion_benches = before.benchmarks("tmpfs");
    let suite = criterion_benches
        .iter()
        .find(|k| k.group == "scenario/suite" && k.function.as_deref() == Some("btree"))
        .cloned()
        .expect("the fixture has the suite on btree");
    record("tmpfs", 1.0).write(crit.path()).unwrap();
    let index = CriterionIndex::open(crit.path()).unwrap();
    let keys = index.benchmarks("tmpfs");
    for k in &criterion_benches {
        assert!(keys.contains(k), "{k:?} is still read");
    }
    let m = index.load("tmpfs", &suite).unwrap().unwrap();
    assert_eq!(m.per_iter_ns.len(), 10);
    assert!(
        (m.per_iter_ns[0] - 1.0e6).abs() < 1e-6,
        "{:?}",
        m.per_iter_ns
    );
}

#[test]
fn the_versions_come_from_the_runs_newest_record() {
    // Criterion's output of run `tmpfs`, the record an earlier `cargo bench` left beside it (no
    // benchmarks of its own; its file name sorts first), and a newer headline record.
    let crit = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), crit.path());
    let mut bench = RunRecord::new(
        "tmpfs",
        "cargo-bench",
        "2026-11-24T00:00:00Z".into(),
        environment(),
    );
    bench.environment.versions.sqlite = "3.1.0".into();
    bench.write(crit.path()).unwrap();
    let mut newer = record("tmpfs", 1.0);
    newer.environment.versions.sqlite = "3.2.0".into();
    newer.write(crit.path()).unwrap();
    let index = CriterionIndex::open(crit.path()).unwrap();
    assert_eq!(
        index.versions("tmpfs").map(|v| v.sqlite.as_str()),
        Some("3.2.0")
    );
}

#[test]
fn a_record_breaking_the_format_fails_the_report_naming_it() {
    let crit = tempfile::tempdir().unwrap();
    let mut bad = record("fast", 1.0);
    let path = bad.write(crit.path()).unwrap();
    bad.benchmarks[0].samples[0].iterations = 0;
    let text = serde_json::to_string(&bad).unwrap();
    std::fs::write(&path, text).unwrap();
    let out = crit.path().join("out");
    match run_report(&args(crit.path(), &out, "fast", &[])) {
        Err(e @ ReportError::Record(_)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("headline.json") && msg.contains("no iterations"),
                "{msg}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!out.exists(), "nothing is written");
}
