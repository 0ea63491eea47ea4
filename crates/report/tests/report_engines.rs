//! "Engines side by side": an engines record in a results folder becomes
//! `engines-report.md` with its table and plot, and the main job's engines record in a
//! criterion directory becomes the section of the run's report.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_record::engines::{
    self, CommitFigures, EngineResult, EnginesRecord, FieldFigures, ProofFigures, ScenarioFigures,
};
use triebench_record::grow::Latency;
use triebench_record::layout;
use triebench_report::{run_engines_report, run_report, ReportArgs};

fn latency(p50_us: f64) -> Latency {
    Latency {
        count: 10,
        p50_us,
        p99_us: p50_us * 2.0,
        max_us: p50_us * 3.0,
    }
}

fn result(engine: &str, profile: &str, update_p50: f64) -> EngineResult {
    EngineResult {
        engine: engine.into(),
        profile: profile.into(),
        reference: "its reference".into(),
        checked_batches: 15,
        update: CommitFigures {
            commits: 1001,
            leaves: 1100,
            total_s: 1.0,
            commits_per_s: 1001.0,
            commit: latency(update_p50),
            write_bytes_per_commit: 4096.0,
        },
        fill: CommitFigures {
            commits: 3,
            commit: latency(update_p50 * 100.0),
            ..CommitFigures::default()
        },
        leaves: 1250,
        disk_bytes_per_leaf: if profile == "btree" { 0.0 } else { 2000.0 },
        nodes_per_leaf: Some(1.3),
        read_warm: latency(10.0),
        read_cold: (profile != "btree").then(|| latency(100.0)),
        proof: Some(ProofFigures {
            count: 10,
            mean_bytes: 800.0,
            max_bytes: 900,
            prove: latency(50.0),
            verify: latency(20.0),
        }),
        ..EngineResult::default()
    }
}

fn record() -> EnginesRecord {
    EnginesRecord {
        schema: engines::SCHEMA,
        started: "2026-11-28T10:00:00Z".into(),
        dir: "/dev/shm/x".into(),
        fs_type: "tmpfs".into(),
        fill_leaves: 300,
        fill_batch: 100,
        reads: 10,
        seed: 7,
        cold_method: "evicted".into(),
        results: vec![
            result("trie", "btree", 400.0),
            result("jmt", "btree", 100.0),
            result("trie", "lmdb", 800.0),
            result("jmt", "lmdb", 200.0),
        ],
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_results_folder_gets_the_section_with_its_table_and_plot() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // One run in the folder itself is labelled by its filesystem type, one below by its folder.
    engines::write(&tmp.path().join(engines::FILE_NAME), &record()).expect("written");
    engines::write(&tmp.path().join("disk").join(engines::FILE_NAME), &record()).expect("written");
    let md_path = run_engines_report(tmp.path()).expect("report");
    let md = read(&md_path);
    assert!(md.contains("## Engines side by side"), "{md}");
    // jmt on lmdb: backend part (200 - 100) / 200, ÷ trie 200 / 800.
    assert!(
        md.contains("| tmpfs | `jmt` | `lmdb` | 1001 | 200 / 400 | 50% |"),
        "{md}"
    );
    assert!(md.contains("| 0.25× | 1.00× |"), "{md}");
    assert!(md.contains("| disk | `trie` | `btree` |"), "{md}");
    // No result has scenarios (a file from before they ran): no scenarios table.
    assert!(
        !md.contains("Transact's scenarios that every engine"),
        "{md}"
    );
    let svg = read(&tmp.path().join("plots/engines.svg"));
    assert!(svg.contains("jmt · lmdb · tmpfs"), "a category per result");
    assert!(tmp.path().join("plots/engines.png").is_file());
}

#[test]
fn the_scenarios_get_a_table_with_skipped_ones_explained() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut record = record();
    for (i, r) in record.results.iter_mut().enumerate() {
        r.scenarios = vec![
            ScenarioFigures {
                name: "root_advance".into(),
                commits: 1,
                reads: 2,
                total_us: 100.0 * (i + 1) as f64,
                ..ScenarioFigures::default()
            },
            ScenarioFigures {
                name: "delete".into(),
                skipped: (r.engine == "jmt").then(|| "a known fault".to_string()),
                total_us: 5.0,
                ..ScenarioFigures::default()
            },
        ];
    }
    engines::write(&tmp.path().join(engines::FILE_NAME), &record).expect("written");
    let md = read(&run_engines_report(tmp.path()).expect("report"));
    assert!(
        md.contains("| filesystem | engine | profile | `root_advance` µs | `delete` µs |"),
        "{md}"
    );
    assert!(
        md.contains("| tmpfs | `trie` | `btree` | 100 | 5 |"),
        "{md}"
    );
    assert!(
        md.contains("| tmpfs | `jmt` | `lmdb` | 400 | skipped |"),
        "{md}"
    );
    // No field workload ran: no field table.
    assert!(!md.contains("The field's workloads"), "{md}");
    // The reason once, however many rows skipped it.
    assert_eq!(
        md.matches("- Skipped: `jmt`, `delete`: a known fault.")
            .count(),
        1,
        "{md}"
    );
}

#[test]
fn field_workloads_get_a_row_per_engine_and_workload() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut record = record();
    record.results[2].field = vec![FieldFigures {
        workload: "firewood-single".into(),
        scale: 1,
        setup_commits: 1,
        timed: CommitFigures {
            commits: 1000,
            leaves: 1000,
            total_s: 2.0,
            commits_per_s: 500.0,
            commit: latency(1500.0),
            write_bytes_per_commit: 8192.0,
        },
    }];
    engines::write(&tmp.path().join(engines::FILE_NAME), &record).expect("written");
    let md = read(&run_engines_report(tmp.path()).expect("report"));
    assert!(
        md.contains(
            "| tmpfs | `trie` | `lmdb` | `firewood-single` (1) | 1000 | 1 | 500 | 1.5 / 3 | 8192 |"
        ),
        "{md}"
    );
    assert_eq!(md.matches("`firewood-single` (1)").count(), 1, "{md}");
}

#[test]
fn an_empty_folder_is_an_error_naming_the_command() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let err = run_engines_report(tmp.path()).unwrap_err().to_string();
    assert!(err.contains("triebench engines --out"), "{err}");
}

#[test]
fn the_main_report_shows_the_runs_engines_section() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let criterion = tmp.path().join("criterion");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion"),
        &criterion,
    );
    engines::write(&layout::engines_path(&criterion, "tmpfs"), &record()).expect("written");
    let out = tmp.path().join("report");
    run_report(&ReportArgs {
        baseline: "tmpfs".into(),
        runs: Vec::new(),
        out: Some(out.clone()),
        criterion_dir: Some(criterion),
        label: None,
        results_root: PathBuf::from("unused"),
    })
    .expect("report");
    let md = read(&out.join("report.md"));
    assert!(
        md.contains("## Engines side by side"),
        "the section is in report.md"
    );
    assert!(md.contains("| tmpfs | `trie` | `lmdb` |"), "{md}");
    assert!(out.join("plots/engines.svg").is_file());
}
