//! "Where a commit's time goes" in `run_report`: a phase run saved for one filesystem (as
//! `triebench phases` saves it) becomes a table with each phase's time and share, a stacked-bar
//! plot and a copy of the file; a filesystem without one gets no table.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_report::model::cpu_idle::{CpuIdle, CpuIdleRecord};
use triebench_report::model::phases::{PhaseRow, PhaseRunFile, SCHEMA};
use triebench_report::read::phase_files;
use triebench_report::{run_report, ReportArgs};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion")
}

fn suite(profile: &str, total_ns: u64, phases: &[(&str, u64)]) -> PhaseRow {
    PhaseRow {
        profile: profile.into(),
        scenario: "suite".into(),
        commits: 1000,
        total_ns,
        phases: phases.iter().map(|(n, ns)| (n.to_string(), *ns)).collect(),
        spans: phases.iter().map(|(n, _)| (n.to_string(), 10)).collect(),
    }
}

#[test]
fn a_phase_run_becomes_a_table_a_plot_and_a_file() {
    let crit = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), crit.path());
    let file = PhaseRunFile {
        schema: SCHEMA.into(),
        run: "tmpfs".into(),
        dir: "/dev/shm/x".into(),
        generated_at: "2026-11-23T00:00:00Z".into(),
        cpu_idle: Some(CpuIdleRecord {
            requested: CpuIdle::Poll,
            held: CpuIdle::Poll,
            detail: "as the test says".into(),
        }),
        rows: vec![
            suite(
                "btree",
                100_000_000,
                &[("hash", 40_000_000), ("trie", 50_000_000)],
            ),
            suite(
                "lmdb",
                400_000_000,
                &[
                    ("hash", 40_000_000),
                    ("commit", 300_000_000),
                    ("trie", 20_000_000),
                ],
            ),
            PhaseRow {
                scenario: "update".into(),
                ..suite("lmdb", 1, &[])
            },
        ],
    };
    file.save(&phase_files::path(crit.path(), "tmpfs")).unwrap();
    // Beside the criterion directory: a report is never written inside its input.
    let out_root = tempfile::tempdir().unwrap();
    let out = out_root.path().join("out");
    run_report(&ReportArgs {
        baseline: "tmpfs".into(),
        runs: vec!["disk".into()],
        out: Some(out.clone()),
        criterion_dir: Some(crit.path().to_path_buf()),
        label: None,
        results_root: PathBuf::from("unused"),
    })
    .unwrap();

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let section = report
        .split("## Where a commit's time goes")
        .nth(1)
        .unwrap_or_else(|| panic!("no phase section in:\n{report}"));
    assert!(section.contains("### `tmpfs` (`/dev/shm/x`)"), "{section}");
    assert!(
        section.contains("Taken with idle CPUs held polling (as the test says)."),
        "the breakdown says what idle CPUs did: {section}"
    );
    assert!(
        !section.contains("### `disk`"),
        "disk has no phase run: {section}"
    );
    // lmdb: 400 ms in all, commit 300 ms = 75%, the rest outside every phase 40 ms = 10%.
    let lmdb = section
        .lines()
        .find(|l| l.starts_with("| `lmdb"))
        .unwrap_or_else(|| panic!("no lmdb row: {section}"));
    assert!(
        lmdb.contains("400 ms") && lmdb.contains("300 ms (75%)"),
        "{lmdb}"
    );
    assert!(lmdb.contains("40 ms (10%)"), "{lmdb}");
    assert!(section.contains("![where a commit's time goes on tmpfs](phases-tmpfs.svg)"));
    assert!(
        section.contains("cost of one span was not measured"),
        "{section}"
    );
    for name in ["phases-tmpfs.svg", "phases-tmpfs.png", "phases-tmpfs.json"] {
        assert!(out.join(name).is_file(), "{name} not written");
    }
    assert!(!out.join("phases-disk.svg").exists());
    let copied: PhaseRunFile =
        serde_json::from_str(&std::fs::read_to_string(out.join("phases-tmpfs.json")).unwrap())
            .unwrap();
    assert_eq!(copied, file);
}
