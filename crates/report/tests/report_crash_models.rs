//! The report reads `crash-models.json` beside the run sidecars and renders "Crash states
//! explored" (per profile and crash model: states, violations, the smallest reproducer's rerun
//! command; then the fsync-EIO answers) in report.md and report.html; a damaged file fails the
//! report naming it.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_record::crash_models::{
    CrashModelsFile, FsyncEioRun, ModelRun, ModelViolation, CRASH_MODELS_FILE,
};
use triebench_report::{run_report, ReportArgs};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion")
}

fn args(criterion: &Path, out: PathBuf) -> ReportArgs {
    ReportArgs {
        baseline: "tmpfs".to_string(),
        runs: vec!["disk".to_string()],
        out: Some(out),
        criterion_dir: Some(criterion.to_path_buf()),
        label: None,
        results_root: PathBuf::from("unused"),
    }
}

fn run(profile: &str, model: &str, states: u64, violations: u64) -> ModelRun {
    ModelRun {
        profile: profile.into(),
        promised: "power-loss".into(),
        model: model.into(),
        mount_flags: "--power-loss --op-log".into(),
        rounds: 2,
        commits_per_round: 24,
        states_per_point: 16,
        crash_points: states / 16,
        states,
        roots_checked: states * 10,
        violations,
        seed: 2611,
        points_between: 2,
        max_points: 0,
        from_open: false,
        seconds: 60,
        smallest: if violations > 0 {
            vec![ModelViolation {
                kind: "lost".into(),
                detail: "1 of 1 acknowledged roots lost".into(),
                round: 1,
                state: "133:1".into(),
                how: "2 name changes lost".into(),
                trace: vec!["unlink db-journal".into()],
                rerun: "triebench crash-test --backend sqlite-rollback --power-loss --model \
                        metadata --seed 2611 --only-round 1 --only-state 133:1"
                    .into(),
            }]
        } else {
            Vec::new()
        },
    }
}

fn models_file() -> CrashModelsFile {
    let mut file = CrashModelsFile::default();
    file.merge(run("sqlite-rollback", "metadata", 1696, 248));
    file.merge(run("lmdb", "torn/512", 1408, 0));
    file.merge(run("lmdb", "clean", 640, 0));
    file.merge_eio(FsyncEioRun {
        profile: "lmdb".into(),
        failed_fsync: 20,
        commits: 8,
        commit_reported_failure: true,
        error: Some("lmdb: Input/output error".into()),
        refused_after: 0,
        acknowledged_after: 3,
        acknowledged_lost: 0,
        states: 10,
        first_loss: None,
    });
    file
}

fn with_file(tmp: &Path, text: &str) -> PathBuf {
    let crit = tmp.join("criterion");
    std::fs::create_dir_all(&crit).expect("criterion dir");
    copy_dir(&fixtures(), &crit);
    std::fs::write(crit.join("triebench-runs").join(CRASH_MODELS_FILE), text).expect("write");
    crit
}

#[test]
fn the_report_shows_states_and_violations_per_profile_and_model() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = serde_json::to_string_pretty(&models_file()).expect("json");
    let crit = with_file(tmp.path(), &text);
    let dir = run_report(&args(&crit, tmp.path().join("r"))).expect("report");
    let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
    let section = md
        .split("## Crash states explored")
        .nth(1)
        .expect("the section is there");
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(
        rows[0].starts_with("| `lmdb` | clean | 2 × 24 |"),
        "{rows:?}"
    );
    assert!(rows[0].contains("640 (under 1000)"), "{}", rows[0]);
    assert!(rows[1].starts_with("| `lmdb` | torn/512 |"), "{rows:?}");
    let rollback = rows
        .iter()
        .find(|r| r.starts_with("| `sqlite-rollback` | metadata |"))
        .expect("the sqlite-rollback row");
    assert!(
        rollback.contains("| 1696 | 248 | lost (1, 133:1) |"),
        "{rollback}"
    );
    assert!(rollback.contains("`triebench crash-test --backend sqlite-rollback"));
    assert!(section.contains("| `lmdb` | #20 | yes | lmdb: Input/output error | 0 / 3 | 0 of 10 |"));
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    assert!(html.contains("Crash states explored"));
    assert!(html.contains("lost (1, 133:1)"));
}

#[test]
fn without_the_file_there_is_no_section_and_a_damaged_one_is_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let crit = tmp.path().join("criterion");
    std::fs::create_dir_all(&crit).expect("criterion dir");
    copy_dir(&fixtures(), &crit);
    let dir = run_report(&args(&crit, tmp.path().join("r"))).expect("report");
    let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
    assert!(!md.contains("Crash states explored"));

    let bad = tempfile::tempdir().expect("tempdir");
    let crit = with_file(bad.path(), "{\"runs\": 3}");
    let err = run_report(&args(&crit, bad.path().join("r")))
        .expect_err("a damaged file fails the report")
        .to_string();
    assert!(err.contains(CRASH_MODELS_FILE), "{err}");
    assert!(!bad.path().join("r").exists(), "nothing is written");
}
