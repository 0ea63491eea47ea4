//! The filesystem lab in `run_report`: latencies from the sidecars, the I/O profile, predictions
//! for each run and for AWS EFS, and the files they are exported to.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_report::model::io_profile::{IoCounts, IoProfileFile, IoRow};
use triebench_report::model::io_profile::{FILE_NAME, SCHEMA};
use triebench_report::PerClass;
use triebench_report::{run_report, ReportArgs};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Adds `latency_us` to a fixture sidecar.
fn set_latency(criterion: &Path, run: &str, lat: PerClass<f64>) {
    let path = criterion.join("triebench-runs").join(format!("{run}.json"));
    let mut v: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    v["latency_us"] = serde_json::to_value(lat).unwrap();
    std::fs::write(&path, v.to_string()).unwrap();
}

fn row(profile: &str, commits: u64, ops: PerClass<u64>, fsyncs: u64) -> IoRow {
    IoRow {
        profile: profile.into(),
        scenario: "suite".into(),
        commits,
        counts: IoCounts {
            ops,
            bytes_read: 0,
            bytes_written: ops.write * 4096,
            fsyncs,
            write_extents: ops.write,
        },
    }
}

const LMDB_OPS: PerClass<u64> = PerClass {
    metadata: 100,
    read: 10,
    write: 2000,
    sync: 2000,
};

/// A criterion directory in a temporary folder that also holds the report's output folder
/// beside it (a report is never written inside its input).
struct Crit {
    _root: tempfile::TempDir,
    path: PathBuf,
}

impl Crit {
    fn path(&self) -> &Path {
        &self.path
    }
}

fn lab_fixture() -> (Crit, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let crit = Crit {
        path: root.path().join("criterion"),
        _root: root,
    };
    copy_dir(&fixtures(), crit.path());
    let lat = |m, r, w, s| PerClass {
        metadata: m,
        read: r,
        write: w,
        sync: s,
    };
    set_latency(crit.path(), "tmpfs", lat(2.0, 1.0, 2.0, 1.0));
    set_latency(crit.path(), "disk", lat(3.0, 41.0, 4.0, 81.0));
    let io = IoProfileFile {
        schema: SCHEMA,
        generated_at: "2026-11-22T00:00:00Z".into(),
        mount: "/lab/iolab".into(),
        slowfs_profile: "none".into(),
        rows: vec![
            row("lmdb", 1000, LMDB_OPS, 2000),
            row(
                "sqlite-wal",
                1000,
                PerClass {
                    metadata: 5000,
                    read: 300,
                    write: 9000,
                    sync: 1000,
                },
                0,
            ),
        ],
    };
    let out = crit.path().with_file_name("out");
    io.save(&crit.path().join("triebench-runs").join(FILE_NAME))
        .unwrap();
    (crit, out)
}

fn args(criterion: &Path, out: &Path) -> ReportArgs {
    ReportArgs {
        baseline: "tmpfs".into(),
        runs: vec!["disk".into()],
        out: Some(out.to_path_buf()),
        criterion_dir: Some(criterion.to_path_buf()),
        label: None,
        results_root: PathBuf::from("unused"),
    }
}

#[test]
fn predictions_charge_each_counted_operation_the_extra_latency() {
    let (crit, out) = lab_fixture();
    run_report(&args(crit.path(), &out)).unwrap();
    let predictions: serde_json::Value =
        serde_json::from_str(&read(&out.join("predictions.json"))).unwrap();
    let find = |target: &str, profile: &str| {
        predictions
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["target"] == target && p["profile"] == profile && p["scenario"] == "suite")
            .cloned()
            .unwrap_or_else(|| panic!("no {target}/{profile} prediction in {predictions}"))
    };
    // lmdb on disk: 100 × 1 µs + 10 × 40 µs + 2000 × 2 µs + 2000 × 80 µs = 164.5 ms extra.
    let disk = find("disk", "lmdb");
    let extra = disk["predicted_ns"].as_f64().unwrap() - disk["baseline_ns"].as_f64().unwrap();
    assert!((extra - 164.5e6).abs() < 1.0, "{disk}");
    assert!(disk["measured_ns"].as_f64().unwrap() > 0.0, "{disk}");
    // On AWS EFS: 100 × 248 + 10 × 249 + 2000 × 2698 + 2000 × 2699 µs.
    let efs = find("aws-efs (published latencies)", "lmdb");
    let extra = efs["predicted_ns"].as_f64().unwrap() - efs["baseline_ns"].as_f64().unwrap();
    let expected = (100.0 * 248.0 + 10.0 * 249.0 + 2000.0 * 2698.0 + 2000.0 * 2699.0) * 1e3;
    assert!((extra - expected).abs() < 1.0, "{efs}");
    assert!(efs["measured_ns"].is_null());
    // btree has no I/O profile row: no prediction rather than a made-up one.
    assert!(!predictions
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["profile"] == "btree"));

    let md = read(&out.join("report.md"));
    for section in [
        "## Cost per operation on each filesystem",
        "## I/O profile: what each backend asks of the filesystem (the why)",
        "## Predicted vs measured",
        "## Real AWS EFS, predicted from its published latencies (`scenario/suite`)",
    ] {
        assert!(md.contains(section), "{section} missing:\n{md}");
    }
    // lmdb: 2 fsyncs, 2 writes and 8 KiB written per commit.
    assert!(
        md.contains(
            "| `lmdb` | 1000 | 2.00 | 2.00 | 2.00 | 8.00 | 0.01 | 0.00 | 0.10 | 1.00 | 2.00 |"
        ),
        "{md}"
    );
    assert!(
        md.contains("98.5× (SQLite (WAL): 6.737 s → 663.6 s)"),
        "the published SQLite slowdown is beside ours:\n{md}"
    );
    let csv = read(&out.join("io-profile.csv"));
    assert!(
        csv.lines()
            .any(|l| l.starts_with("lmdb,suite,1000,2000,2000,2000,")),
        "{csv}"
    );
    let copied: IoProfileFile = serde_json::from_str(&read(&out.join(FILE_NAME))).unwrap();
    assert_eq!(copied.rows.len(), 2);
}

#[test]
fn without_an_io_profile_the_report_says_how_to_get_one() {
    let (crit, out) = lab_fixture();
    std::fs::remove_file(crit.path().join("triebench-runs").join(FILE_NAME)).unwrap();
    run_report(&args(crit.path(), &out)).unwrap();
    let md = read(&out.join("report.md"));
    assert!(
        md.contains("No I/O profile: run `triebench io-profile"),
        "{md}"
    );
    assert!(!out.join("predictions.json").exists());
}

#[test]
fn a_damaged_io_profile_is_a_clear_error() {
    let (crit, out) = lab_fixture();
    std::fs::write(crit.path().join("triebench-runs").join(FILE_NAME), "{").unwrap();
    let err = run_report(&args(crit.path(), &out)).unwrap_err();
    assert!(
        err.to_string().contains("re-run `triebench io-profile`"),
        "{err}"
    );
}

#[test]
fn a_run_without_the_suite_is_compared_over_the_scenarios_it_measured() {
    let (crit, out) = lab_fixture();
    for profile in ["btree", "lmdb", "sqlite-wal"] {
        let dir = crit
            .path()
            .join("scenario_suite")
            .join(profile)
            .join("disk");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let path = crit.path().join("triebench-runs").join(FILE_NAME);
    let mut io = IoProfileFile::load(&path).unwrap().unwrap();
    for scenario in ["empty_changes", "update", "pruning_parent"] {
        let mut r = row("lmdb", 10, LMDB_OPS, 20);
        r.scenario = scenario.into();
        io.rows.push(r);
    }
    io.save(&path).unwrap();
    run_report(&args(crit.path(), &out)).unwrap();
    let md = read(&out.join("report.md"));
    let lmdb = md
        .lines()
        .skip_while(|l| !l.starts_with("## Predicted vs measured"))
        .find(|l| l.starts_with("| `lmdb` |"))
        .unwrap_or_else(|| panic!("no lmdb row:\n{md}"));
    assert!(lmdb.ends_with("[Σ 3 scenarios] |"), "{lmdb}");
}
