//! `triebench report --runs DIR` over a folder of `triebench field` and `triebench smallbank`
//! JSON (the tiny real run in `fixtures/field-report/`): it writes DIR/report.md with "Against
//! published figures" and DIR/env.json, or OUT/report.md with `--out`; `--baseline` with such a
//! folder is one usage error. And `triebench field --run NAME` / `triebench smallbank --run NAME`
//! save their record for that run, whose main report (`triebench report`) then shows them
//! against the published figures.

mod common;

use std::path::PathBuf;

use common::{copy_dir, repo, triebench};

fn fixtures() -> PathBuf {
    repo().join("fixtures/field-report/memory")
}

/// The fixture records copied into `<tmp>/runs/memory/`.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let memory = runs.join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    for entry in std::fs::read_dir(fixtures()).unwrap().flatten() {
        std::fs::copy(entry.path(), memory.join(entry.file_name())).unwrap();
    }
    (tmp, runs)
}

#[test]
fn a_folder_of_field_runs_gets_its_report_with_the_published_figures() {
    let (_tmp, runs) = folder();
    let dir = runs.to_str().unwrap();
    let out = triebench(&["report", "--runs", dir]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("report.md"), "{stdout}");
    let md = std::fs::read_to_string(runs.join("report.md")).unwrap();
    assert!(md.contains("## Against published figures"), "{md}");
    assert!(md.contains("42,686 leaves/s"), "{md}");
    assert!(md.contains("this machine, same run"), "{md}");
    assert!(runs.join("env.json").is_file());
}

#[test]
fn out_takes_the_report_elsewhere_and_baseline_is_refused() {
    let (tmp, runs) = folder();
    let dir = runs.to_str().unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    let out = triebench(&[
        "report",
        "--runs",
        dir,
        "--out",
        elsewhere.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(elsewhere.join("report.md").is_file());
    assert!(!runs.join("report.md").exists());

    let out = triebench(&["report", "--runs", dir, "--baseline", "tmpfs"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--baseline"), "{stderr}");
}

#[test]
fn records_saved_for_a_run_reach_its_main_report() {
    let tmp = tempfile::tempdir().unwrap();
    let criterion = tmp.path().join("criterion");
    copy_dir(&repo().join("fixtures/criterion"), &criterion);
    let c = criterion.to_str().unwrap();
    // A bad run name is refused before anything runs.
    let out = triebench(&["smallbank", "--run", "../up", "--criterion-dir", c]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("../up"), "{stderr}");
    let out = triebench(&[
        "smallbank",
        "--accounts",
        "10",
        "--transactions",
        "40",
        "--block-size",
        "10",
        "--run",
        "tmpfs",
        "--criterion-dir",
        c,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved = criterion.join("triebench-runs/field/tmpfs/smallbank-btree.json");
    assert!(saved.is_file(), "{}", saved.display());
    // A record saved for another run stays out of this run's report.
    let other = criterion.join("triebench-runs/field/elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(
        fixtures().join("btree-iavl-bank.json"),
        other.join("iavl-bank-btree.json"),
    )
    .unwrap();

    let report = tmp.path().join("report");
    let out = triebench(&[
        "report",
        "--baseline",
        "tmpfs",
        "--criterion-dir",
        c,
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(md.contains("## Against published figures"), "{md}");
    assert!(md.contains("this machine, same run"), "{md}");
    assert!(
        md.contains("| tmpfs | `btree` |"),
        "this run's record, by its run: {md}"
    );
    assert!(!md.contains("elsewhere"), "the other run's record: {md}");
}
