//! The "triebench vs Transact" section on real measurements: `fixtures/criterion-transact` is
//! criterion's output of `scripts/bench-fs.sh` with the Transact benches (suite only, tmpfs and
//! disk, 2026-11-23; see its README), cut to four stores.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_report::{run_report, ReportArgs};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion-transact")
}

/// The rows of the markdown table under `### <heading>`, cells trimmed.
fn table_after(report: &str, heading: &str) -> Vec<Vec<String>> {
    let start = report
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}` in:\n{report}"));
    report[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn each_transact_store_is_set_beside_its_counterpart_with_an_interval() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let criterion = tmp.path().join("criterion");
    copy_dir(&fixtures(), &criterion);
    let out = tmp.path().join("out");
    let folder = run_report(&ReportArgs {
        baseline: "tmpfs".into(),
        runs: vec!["tmpfs".into(), "disk".into()],
        out: Some(out),
        criterion_dir: Some(criterion),
        label: None,
        results_root: PathBuf::from("unused"),
    })
    .unwrap_or_else(|e| panic!("report: {e}"));
    let report = std::fs::read_to_string(folder.join("report.md")).expect("report.md");
    assert!(report.contains("## triebench vs Transact"), "{report}");

    let rows = table_after(&report, "### tmpfs");
    let find = |implementation: &str, store: &str| {
        rows.iter()
            .find(|r| r[0] == implementation && r[1] == store)
            .unwrap_or_else(|| panic!("no {implementation} {store} row in {rows:?}"))
    };
    // Transact's LMDB flags never sync; our lmdb does: the table says so.
    let lmdb = find("transact-0.4.7", "`lmdb`");
    assert_eq!((lmdb[5].as_str(), lmdb[6].as_str()), ("**yes**", "no"));
    // Transact 0.3.7's Redis pays a round trip per read: compared with our redis-uncached.
    let redis = find("transact-0.3.7", "`redis` (ours: `redis-uncached`)");
    assert_eq!((redis[5].as_str(), redis[6].as_str()), ("no", "no"));
    for r in [lmdb, redis] {
        assert!(
            r[4].contains('[') && r[4].contains('×'),
            "no ratio interval: {r:?}"
        );
    }
    // The headline names each Transact store's own durability, not an unknown profile.
    let suite = table_after(&report, "## Whole suite");
    let durable = |name: &str| {
        suite
            .iter()
            .find(|r| r[0] == name)
            .map(|r| r[1].clone())
            .unwrap_or_else(|| panic!("no {name} row in {suite:?}"))
    };
    assert_eq!(durable("`transact-0.4.7:lmdb`"), "no");
    assert_eq!(durable("`lmdb`"), "**yes** (fsync/commit)");
    assert!(!report.contains("unknown profile"), "{report}");
    // Each implementation's slowdown on disk vs tmpfs.
    let slowdowns = table_after(&report, "### Slowdown vs `tmpfs`");
    assert!(
        slowdowns
            .iter()
            .any(|r| r[0] == "disk" && r[2] == "transact-0.4.7" && r[3].contains('[')),
        "{slowdowns:?}"
    );
    // Ours is named by its own profile: the counterpart of Transact's Redis is redis-uncached.
    let ours: Vec<&str> = slowdowns
        .iter()
        .filter(|r| r[2] == "triebench")
        .map(|r| r[1].as_str())
        .collect();
    assert!(ours.contains(&"`redis-uncached`"), "{slowdowns:?}");
    assert!(!ours.contains(&"`redis`"), "{slowdowns:?}");
}
