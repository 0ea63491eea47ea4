//! The criterion reader against real criterion 0.8 output captured in `fixtures/criterion/`
//! (two `--save-baseline` runs: `tmpfs` with TMPDIR=/dev/shm, `disk` with TMPDIR on ext4).

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_report::model::bench_id::{BenchKey, BenchKind};
use triebench_report::model::results::ThroughputUnit;
use triebench_report::{CriterionIndex, ReportError};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion")
}

fn index() -> CriterionIndex {
    match CriterionIndex::open(&fixtures()) {
        Ok(i) => i,
        Err(e) => panic!("fixtures must index: {e}"),
    }
}

#[test]
fn finds_both_baselines_and_every_benchmark() {
    let idx = index();
    assert_eq!(idx.baselines(), ["disk", "tmpfs"]);
    for baseline in ["disk", "tmpfs"] {
        let keys = idx.benchmarks(baseline);
        assert_eq!(keys.len(), 20, "{baseline}: {keys:?}");
        for scenario in ["suite", "empty_changes", "update", "pruning_parent"] {
            for profile in ["btree", "lmdb", "sqlite-wal"] {
                let key = BenchKey::new(&format!("scenario/{scenario}"), Some(profile), None);
                assert!(keys.contains(&key), "{baseline} lacks {}", key.full_id());
                assert_eq!(
                    key.kind(),
                    BenchKind::Scenario {
                        scenario: scenario.into(),
                        profile: profile.into()
                    }
                );
            }
        }
        for id in [
            BenchKey::new("floor", Some("fsync_4k"), None),
            BenchKey::new("floor", Some("sha512_8k"), None),
            BenchKey::new("scale/commit_size/btree", None, Some("10")),
            BenchKey::new("scale/commit_size/btree", None, Some("100")),
            BenchKey::new("scale/reads/btree", Some("hit"), Some("100")),
            BenchKey::new("scale/reads/btree", Some("miss"), Some("100")),
            BenchKey::new("kv/commit/btree", None, Some("1")),
            BenchKey::new("kv/commit/btree", None, Some("100")),
        ] {
            assert!(keys.contains(&id), "{baseline} lacks {}", id.full_id());
        }
    }
    assert!(idx.benchmarks("nope").is_empty());
    assert!(
        !idx.has_baseline("new"),
        "only the saved baselines were captured"
    );
}

#[test]
fn measurements_match_criterions_estimates() {
    let idx = index();
    for baseline in ["disk", "tmpfs"] {
        let all = match idx.load_all(baseline) {
            Ok(a) => a,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(all.len(), 20);
        for (key, m) in &all {
            assert_eq!(m.per_iter_ns.len(), 20, "{}", key.full_id());
            assert!(m.per_iter_ns.iter().all(|t| *t > 0.0));
            // criterion's mean estimate is the mean of times/iters over the samples.
            let mean = m.per_iter_ns.iter().sum::<f64>() / m.per_iter_ns.len() as f64;
            let rel = (mean - m.mean.point).abs() / m.mean.point;
            assert!(rel < 1e-9, "{}: {mean} vs {}", key.full_id(), m.mean.point);
            assert!(m.mean.lower <= m.mean.point && m.mean.point <= m.mean.upper);
            assert!(m.median.lower <= m.median.point && m.median.point <= m.median.upper);
            assert_eq!(m.mean.confidence_level, 0.95);
        }
    }
}

#[test]
fn throughputs_are_read() {
    let idx = index();
    let sha = idx
        .load("tmpfs", &BenchKey::new("floor", Some("sha512_8k"), None))
        .ok()
        .flatten();
    let Some(sha) = sha else {
        panic!("sha512_8k must load")
    };
    assert_eq!(sha.throughput.len(), 1);
    assert_eq!(sha.throughput[0].unit, ThroughputUnit::Bytes);
    assert_eq!(sha.throughput[0].per_iteration, 8192);
    let commit = idx
        .load(
            "disk",
            &BenchKey::new("scale/commit_size/btree", None, Some("100")),
        )
        .ok()
        .flatten();
    let Some(commit) = commit else {
        panic!("commit_size/100 must load")
    };
    assert_eq!(commit.throughput[0].unit, ThroughputUnit::Elements);
    assert_eq!(commit.throughput[0].per_iteration, 100);
    let fsync = idx
        .load("disk", &BenchKey::new("floor", Some("fsync_4k"), None))
        .ok()
        .flatten();
    assert!(fsync.is_some_and(|m| m.throughput.is_empty()));
    assert!(matches!(
        idx.load("disk", &BenchKey::new("floor", Some("nope"), None)),
        Ok(None)
    ));
}

#[test]
fn a_damaged_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().ok();
    let Some(tmp) = tmp else { panic!("tempdir") };
    copy_dir(&fixtures(), tmp.path());
    let bad = tmp.path().join("scenario_update/lmdb/disk/sample.json");
    assert!(bad.is_file());
    std::fs::write(&bad, "{\"iters\": [1.0], \"times\": []}").ok();
    let idx = match CriterionIndex::open(tmp.path()) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    };
    match idx.load_all("disk") {
        Err(ReportError::CriterionFile { path, reason }) => {
            assert_eq!(path, bad);
            assert!(reason.contains("differ in length"), "{reason}");
        }
        other => panic!("expected a CriterionFile error, got {other:?}"),
    }
    assert!(idx.load_all("tmpfs").is_ok(), "other baselines still load");
}

#[test]
fn a_missing_directory_says_how_to_make_one() {
    let err = CriterionIndex::open(Path::new("/nonexistent/criterion"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("--save-baseline"), "{err}");
    assert!(err.contains("--criterion-dir"), "{err}");
}
