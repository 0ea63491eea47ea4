//! `triebench report --runs DIR...` over run folders made by `triebench export-run` on two
//! (simulated) hosts whose runs share a filesystem name: one report whose columns name host and
//! filesystem, each ratio taken from the right folder and each run's CPU idle record with it.

mod common;
use common::{copy_dir, export, repo, triebench};

use std::path::{Path, PathBuf};

/// Renames every directory called `from` (criterion baselines) and the sidecar `from.json`.
fn rename_run(dir: &Path, from: &str, to: &str) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if entry.file_type().expect("type").is_dir() {
            rename_run(&path, from, to);
            if entry.file_name() == from {
                std::fs::rename(&path, dir.join(to)).expect("rename baseline");
            }
        } else if entry.file_name().to_str() == Some(&format!("{from}.json")) {
            std::fs::rename(&path, dir.join(format!("{to}.json"))).expect("rename sidecar");
        }
    }
}

/// The first file called `name` below `dir`, in name order.
fn first_file_named(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    if let Some(found) = entries
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f == name))
    {
        return Some(found.clone());
    }
    entries
        .iter()
        .filter(|p| p.is_dir())
        .find_map(|p| first_file_named(p, name))
}

/// The suite slowdown rows of ratios.json: (benchmark, run, reference run) -> ratio.
fn suite_slowdowns(ratios: &Path) -> Vec<(String, String, String, f64)> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ratios).expect("ratios.json"))
            .expect("ratios JSON");
    json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["comparison"] == "slowdown_vs_baseline" && r["scenario"] == "suite")
        .map(|r| {
            (
                r["benchmark"].as_str().unwrap_or_default().to_string(),
                r["run"].as_str().unwrap_or_default().to_string(),
                r["reference_run"].as_str().unwrap_or_default().to_string(),
                r["ratio"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect()
}

#[test]
fn two_hosts_with_the_same_filesystem_name_merge_into_one_report() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fixtures = repo().join("fixtures/criterion");
    // Host A's tmpfs run is the fixture's `tmpfs`; host B's tmpfs run holds the fixture's `disk`
    // numbers, so each merged column must come from its own folder.
    let crit_a = tmp.path().join("a/criterion");
    copy_dir(&fixtures, &crit_a);
    let crit_b = tmp.path().join("b/criterion");
    copy_dir(&fixtures, &crit_b);
    rename_run(&crit_b, "tmpfs", "unused");
    rename_run(&crit_b, "disk", "tmpfs");
    // What idle CPUs did: held polling on host A, left to the OS on host B.
    for (crit, held) in [(&crit_a, "poll"), (&crit_b, "os")] {
        let dir = crit.join("triebench-runs/headline");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let record = format!(
            r#"{{"requested": "{held}", "held": "{held}", "detail": "as the fixture says"}}"#
        );
        std::fs::write(dir.join("tmpfs.json"), record).expect("write record");
    }
    let runs = tmp.path().join("runs");
    let folder_a = export("host-a", "tmpfs", &crit_a, &runs);
    let folder_b = export("host-b", "tmpfs", &crit_b, &runs);
    assert_ne!(folder_a, folder_b);

    let out = tmp.path().join("merged");
    let merge_args = [
        "report".to_string(),
        "--runs".to_string(),
        folder_a.display().to_string(),
        folder_b.display().to_string(),
        "--out".to_string(),
        out.display().to_string(),
    ];
    let merge_args: Vec<&str> = merge_args.iter().map(String::as_str).collect();
    let merged = triebench(&merge_args);
    assert!(
        merged.status.success(),
        "report --runs: {}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(report.contains("## Machines"), "{report}");
    for label in ["host-a.tmpfs", "host-b.tmpfs"] {
        assert!(report.contains(&format!("`{label}`")), "no column {label}");
    }
    // Each host's CPU idle record followed its run through export and merge.
    assert!(
        report.contains(
            "`host-a.tmpfs`: idle CPUs held polling (as the fixture says); \
             `host-b.tmpfs`: idle CPUs left to the OS (as the fixture says)"
        ),
        "{report}"
    );

    // The reference: the fixture's own disk vs tmpfs slowdowns, from one criterion directory.
    let single = tmp.path().join("single");
    let plain = triebench(&[
        "report",
        "--baseline",
        "tmpfs",
        "--runs",
        "tmpfs",
        "disk",
        "--criterion-dir",
        &fixtures.display().to_string(),
        "--out",
        &single.display().to_string(),
    ]);
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let expected = suite_slowdowns(&single.join("ratios.json"));
    let got = suite_slowdowns(&out.join("ratios.json"));
    assert!(!expected.is_empty());
    assert_eq!(got.len(), expected.len(), "{got:?} vs {expected:?}");
    for (bench, run, reference, ratio) in &got {
        assert_eq!(
            (run.as_str(), reference.as_str()),
            ("host-b.tmpfs", "host-a.tmpfs")
        );
        let (_, _, _, want) = expected
            .iter()
            .find(|(b, ..)| b == bench)
            .unwrap_or_else(|| panic!("{bench} missing from the single-machine report"));
        assert!(
            (ratio - want).abs() < 1e-9 * want.abs(),
            "{bench}: {ratio} vs {want}"
        );
    }

    // A bad file in a run folder fails the report naming that file (not its merged copy), and
    // the report made before, merged runs included, stays as it was.
    let report_before = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    let sample = first_file_named(&folder_b.join("criterion"), "sample.json").expect("a sample");
    std::fs::write(&sample, "garbage").expect("corrupt sample.json");
    let failed = triebench(&merge_args);
    assert!(!failed.status.success());
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(err.contains(&sample.display().to_string()), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("report.md")).expect("report.md"),
        report_before
    );
    assert!(out.join("criterion/triebench-runs").is_dir());

    // A folder given twice, or a baseline no folder has, is refused before anything is
    // written: the merged directory made before stays.
    let a = folder_a.display().to_string();
    let o = out.display().to_string();
    for (args, says) in [
        (vec!["report", "--runs", &a, &a, "--out", &o], "again"),
        (
            vec!["report", "--runs", &a, "--baseline", "nosuch", "--out", &o],
            "nosuch",
        ),
    ] {
        let refused = triebench(&args);
        assert!(!refused.status.success());
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(err.contains(says), "{err}");
        assert!(out.join("criterion/triebench-runs").is_dir(), "{err}");
    }

    // Mixing names and folders is refused with one clear message.
    let mixed = triebench(&["report", "--runs", &folder_a.display().to_string(), "tmpfs"]);
    assert!(!mixed.status.success());
    assert!(String::from_utf8_lossy(&mixed.stderr).contains("either run folders"));
}
