//! Bad input to the CLI is one clear error, given before anything is measured: outputs that
//! cannot be written, durations and budgets past what a run can take, run names that would
//! leave the criterion tree or collide with criterion's own, zero rounds, and files that are not
//! what a command reads or adds to.

use std::path::Path;
use std::process::{Command, Output};

fn triebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .output()
        .expect("triebench runs")
}

/// Runs `args`, which must fail, and returns its standard error.
fn fails(args: &[&str]) -> String {
    let o = triebench(args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success(), "{args:?} succeeded: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

#[test]
fn load_checks_its_outputs_and_durations_before_the_preload() {
    let work = tempfile::tempdir().expect("temp dir");
    let file = work.path().join("a-file");
    std::fs::write(&file, b"x").expect("file");
    let store = work.path().join("store");
    let base = ["load", "--backend", "btree", "--state-size", "100"];
    let cases: [(&[&str], &str); 5] = [
        (&["--out", path(&file)], "is a file, not a directory"),
        (
            &["--phases", path(work.path()), "--readers", "0"],
            "is a directory, not a file",
        ),
        (&["--duration", "1e30s"], "is too long"),
        (&["--p99-bound", "99999999999999999999s"], "is too long"),
        (&["--rate", "inf"], "finite number above 0"),
    ];
    for (extra, expect) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--dir", path(&store), "--duration", "1s"]);
        let err = fails(&args);
        assert!(err.contains(expect), "{args:?}: {err}");
        assert!(
            !err.contains("preloaded"),
            "{args:?} preloaded first: {err}"
        );
    }
    // A thousand seconds, written with an exponent, is a duration and not a unit error.
    let err = fails(&["load", "--duration", "1e3s", "--rate", "0"]);
    assert!(err.contains("--rate must be"), "{err}");
}

#[test]
fn load_compare_names_a_file_that_is_not_a_load_file() {
    let work = tempfile::tempdir().expect("temp dir");
    let bad = work.path().join("load.json");
    std::fs::write(&bad, b"{\"schema_version\": 1").expect("file");
    let err = fails(&["load", "--compare", path(&bad), path(&bad)]);
    assert!(err.contains("cannot read load file"), "{err}");
    assert!(!err.contains("sidecar"), "{err}");
}

#[test]
fn headline_and_phases_refuse_budgets_and_run_names_they_cannot_use() {
    let work = tempfile::tempdir().expect("temp dir");
    let dir = path(work.path());
    let crit = work.path().join("criterion");
    let on = [
        "--dir",
        dir,
        "--profiles",
        "btree",
        "--criterion-dir",
        path(&crit),
    ];
    let cases: [(&[&str], &str); 4] = [
        (&["--run", "x", "--budget", "1e20"], "--budget"),
        (&["--run", "new"], "invalid run name"),
        (&["--run", "x", "--max-rounds", "0"], "--max-rounds"),
        (&["--run", "../x"], "invalid run name"),
    ];
    for (extra, expect) in cases {
        let args = [&["headline"][..], &on, extra].concat();
        let err = fails(&args);
        assert!(err.contains(expect), "{args:?}: {err}");
    }
    let err = fails(&[&["phases"][..], &on, &["--run", "../../evil"]].concat());
    assert!(err.contains("invalid run name"), "{err}");
    assert!(!work.path().join("evil.json").exists());
}

#[test]
fn crash_test_refuses_zero_rounds_and_a_crash_file_it_cannot_add_to() {
    let work = tempfile::tempdir().expect("temp dir");
    let err = fails(&["crash-test", "--backend", "lmdb", "--rounds", "0"]);
    assert!(err.contains("--rounds"), "{err}");
    let out = work.path().join("out");
    std::fs::create_dir_all(&out).expect("out");
    std::fs::write(out.join("crash.json"), b"[1, 2").expect("crash.json");
    let err = fails(&[
        "crash-test",
        "--backend",
        "lmdb",
        "--rounds",
        "1",
        "--dir",
        path(work.path()),
        "--out",
        path(&out),
    ]);
    assert!(err.contains("is not a crash file"), "{err}");
    assert_eq!(
        std::fs::read(out.join("crash.json")).expect("kept"),
        b"[1, 2"
    );
}

#[test]
fn a_report_reads_every_file_before_it_writes_one() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let criterion = tmp.path().join("criterion");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion");
    let copied = Command::new("cp")
        .args(["-r", path(&fixtures), path(&criterion)])
        .status()
        .expect("cp runs");
    assert!(copied.success());
    let out = tmp.path().join("out");
    let report = [
        "report",
        "--baseline",
        "tmpfs",
        "--runs",
        "disk",
        "--criterion-dir",
        path(&criterion),
        "--out",
        path(&out),
    ];
    let made = triebench(&report);
    assert!(made.status.success(), "{made:?}");
    let plot = out.join("slowdown.svg");
    let written = std::fs::metadata(&plot).and_then(|m| m.modified());
    let phases = criterion.join("triebench-runs/phases");
    std::fs::create_dir_all(&phases).expect("mkdir");
    std::fs::write(phases.join("disk.json"), "{ not json").expect("write");
    let err = fails(&report);
    assert!(err.contains("disk.json"), "{err}");
    // The phase file is read after the plots are made, but before any is written.
    assert_eq!(
        std::fs::metadata(&plot).and_then(|m| m.modified()).ok(),
        written.ok()
    );
}
