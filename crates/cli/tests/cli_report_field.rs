//! `triebench report --runs DIR` over a folder of `triebench field` and `triebench smallbank`
//! JSON (the tiny real run in `fixtures/field-report/`): it writes DIR/report.md with "Against
//! published figures" and DIR/env.json, or OUT/report.md with `--out`; `--baseline` with such a
//! folder is one usage error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn triebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .output()
        .expect("triebench runs")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/field-report/memory")
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
