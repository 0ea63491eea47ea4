//! `run_net_report`: headline run records at several distances (`net` absent: direct; 0 and
//! 1000 µs through the proxy) and a `load.json` become net-report.md's tables, with each
//! profile's suite divided by its zero-distance runs and `update` by its floor, and the plot of
//! suite time against round trip. A folder with nothing to report is an error naming it.

use std::path::Path;

use triebench_record::net::NetRecord;
use triebench_record::{Benchmark, Environment, HostInfo, RunRecord, Sample, Versions};
use triebench_report::{run_net_report, ReportError};

fn environment() -> Environment {
    let text = |s: &str| s.to_string();
    Environment {
        host: HostInfo {
            hostname: text("h"),
            cpu_model: text("a CPU"),
            cores: 2,
            physical_cores: None,
            ram_bytes: None,
            kernel: text("6.1"),
            os: text("linux x86_64"),
        },
        versions: Versions {
            sqlite: text("-"),
            lmdb: text("-"),
            redis_server: text("-"),
            triebench: text("0.1.0"),
            git_commit: text("abc"),
            git_dirty: None,
        },
    }
}

/// A headline record at `rtt_us` (`None`: direct) with postgres's suite at `suite_ms`, its
/// `update` at `update_ms` per commit and its floor at `floor_ms` per commit.
fn write_record(dir: &Path, rtt_us: Option<f64>, suite_ms: f64, update_ms: f64, floor_ms: f64) {
    let mut r = RunRecord::new(
        "tmpfs",
        "headline",
        "2026-11-26T00:00:00Z".into(),
        environment(),
    );
    r.net = rtt_us.map(|rtt_us| NetRecord {
        rtt_us,
        jitter_us: 0.0,
        bandwidth_bytes_per_s: None,
    });
    let p = Some("postgres");
    r.benchmarks.push(Benchmark::ns(
        "scenario/suite",
        "postgres",
        p,
        vec![Sample::one(suite_ms * 0.9e6), Sample::one(suite_ms * 1.1e6)],
    ));
    r.benchmarks.push(Benchmark::ns(
        "scenario/update",
        "postgres",
        p,
        vec![Sample::one(update_ms * 1e9)],
    ));
    r.benchmarks.push(Benchmark::ns(
        "floor/commit",
        "postgres",
        p,
        vec![Sample::one(floor_ms * 1e6); 3],
    ));
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("headline.json"),
        serde_json::to_string(&r).unwrap(),
    )
    .unwrap();
}

#[test]
fn suite_time_is_tabled_and_plotted_against_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_record(&d.join("headline/direct"), None, 1000.0, 2.0, 1.0);
    write_record(&d.join("headline/rtt-0"), Some(0.0), 1250.0, 2.5, 1.0);
    write_record(&d.join("headline/rtt-1ms"), Some(1000.0), 2500.0, 6.0, 4.0);
    let path = run_net_report(d).expect("report");
    let md = std::fs::read_to_string(&path).unwrap();
    let line = |distance: &str| {
        md.lines()
            .find(|l| l.starts_with("| `postgres` |") && l.contains(&format!("| {distance} |")))
            .unwrap_or_else(|| panic!("no {distance} row in\n{md}"))
            .to_string()
    };
    // 2500 ms at 1 ms: 2.5x direct, 2x proxy 0; update 6 ms over a 4 ms floor: 1.5.
    assert_eq!(
        line("1 ms"),
        "| `postgres` | 1 ms | 2500 | 2.50 | 2.00 | 6.000 | 4.000 | 1.50 |"
    );
    assert!(line("direct").contains("| 1000 | 1.00 | 0.80 |"), "{md}");
    assert!(line("proxy 0").contains("| 1.25 |"), "{md}");
    assert!(md.contains("(plots/net-suite.svg)"), "{md}");
    let svg = std::fs::read_to_string(d.join("plots/net-suite.svg")).unwrap();
    assert!(svg.contains("postgres"), "the legend names the profile");
    assert!(d.join("plots/net-suite.png").is_file());
}

#[test]
fn a_folder_without_runs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    match run_net_report(dir.path()) {
        Err(ReportError::File { path, .. }) => assert_eq!(path, dir.path()),
        other => panic!("expected an error naming the folder, got {other:?}"),
    }
    assert!(!dir.path().join("net-report.md").exists());
}
