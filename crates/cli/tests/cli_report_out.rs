//! `triebench report --out` never deletes what it did not create (issue 34): an output folder
//! that is, lies inside or holds one of the report's inputs is refused before anything is
//! written; an existing folder is replaced only when a report wrote it, keeping what else the
//! user put there.

mod common;
use common::{copy_dir, export, repo, triebench};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file below `dir` (relative path -> contents) and every directory (-> empty).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("entry").path();
            let rel = path.strip_prefix(root).expect("below root").to_path_buf();
            if path.is_dir() {
                out.insert(rel.join(""), Vec::new());
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).expect("read file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Names in `dir` starting with `.` (a fresh report folder left behind would be one).
fn hidden_entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn out_onto_an_input_is_refused_and_deletes_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let crit = tmp.path().join("criterion");
    copy_dir(&repo().join("fixtures/criterion"), &crit);
    let runs = tmp.path().join("runs");
    let a = export("host-a", "tmpfs", &crit, &runs);
    let b = export("host-b", "disk", &crit, &runs);
    let before_a = snapshot(&a);
    let before_b = snapshot(&b);
    assert!(
        before_a.keys().any(|p| p.starts_with("criterion")),
        "{before_a:?}"
    );

    let (sa, sb) = (a.display().to_string(), b.display().to_string());
    let inside = a.join("criterion").display().to_string();
    let holder = runs.display().to_string();
    for (out, says) in [
        (&sa, "is the input"),
        (&inside, "is inside the input"),
        (&holder, "contains the input"),
    ] {
        let refused = triebench(&["report", "--runs", &sa, "--runs", &sb, "--out", out]);
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "--out {out}: {err}");
        assert!(
            err.contains("refusing --out") && err.contains(says),
            "{err}"
        );
        assert!(err.lines().count() <= 2, "one clear message: {err}");
        assert_eq!(snapshot(&a), before_a, "--out {out} changed {sa}");
        assert_eq!(snapshot(&b), before_b, "--out {out} changed {sb}");
        assert!(
            hidden_entries(&runs).is_empty(),
            "{:?}",
            hidden_entries(&runs)
        );
    }

    // The same for a criterion directory read by name.
    let before = snapshot(&crit);
    let c = crit.display().to_string();
    let refused = triebench(&[
        "report",
        "--baseline",
        "tmpfs",
        "--criterion-dir",
        &c,
        "--out",
        &c,
    ]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && err.contains("is the input"),
        "{err}"
    );
    assert_eq!(snapshot(&crit), before);
}

#[test]
fn a_report_replaces_only_its_own_folder_and_keeps_what_else_is_there() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let crit = tmp.path().join("criterion");
    copy_dir(&repo().join("fixtures/criterion"), &crit);
    let runs = tmp.path().join("runs");
    let a = export("host-a", "tmpfs", &crit, &runs);
    let b = export("host-b", "disk", &crit, &runs);
    let out = tmp.path().join("merged");
    let (sa, sb, so) = (
        a.display().to_string(),
        b.display().to_string(),
        out.display().to_string(),
    );
    let args = ["report", "--runs", &sa, "--runs", &sb, "--out", &so];
    let first = triebench(&args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    // What a person adds to a result folder is kept when the report is made again.
    std::fs::write(out.join("RUNS.md"), "how these runs were made\n").expect("write notes");
    std::fs::create_dir(out.join("logs")).expect("mkdir");
    std::fs::write(out.join("logs/run.log"), "log\n").expect("write log");
    let again = triebench(&args);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let report_again = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("enerated"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&report_again), strip(&report));
    assert_eq!(
        std::fs::read_to_string(out.join("RUNS.md")).expect("notes kept"),
        "how these runs were made\n"
    );
    assert!(out.join("logs/run.log").is_file());
    assert!(out.join("criterion/triebench-runs").is_dir());
    assert!(hidden_entries(tmp.path()).is_empty());

    // A folder a report did not write is not replaced.
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).expect("mkdir");
    std::fs::write(mine.join("thesis.tex"), "mine\n").expect("write");
    let before = snapshot(&mine);
    let m = mine.display().to_string();
    let refused = triebench(&["report", "--runs", &sa, "--runs", &sb, "--out", &m]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && err.contains("not a report folder"),
        "{err}"
    );
    assert_eq!(snapshot(&mine), before);
}
