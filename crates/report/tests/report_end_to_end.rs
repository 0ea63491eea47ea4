//! `run_report` on the captured criterion output: every file, table, marker and plot.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use triebench_report::analysis::ratios::Status;
use triebench_report::render::chart::chart_size;
use triebench_report::render::markdown::{DURABLE_YES, MISSING};
use triebench_report::render::ratio_files::{RatiosFile, CSV_COLUMNS};
use triebench_report::{run_report, ReportArgs, ReportError};

const PROFILES: [&str; 3] = ["btree", "lmdb", "sqlite-wal"];
const SCENARIOS: [&str; 4] = ["suite", "empty_changes", "update", "pruning_parent"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/criterion")
}

fn tempdir() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

fn args(criterion: &Path, out: Option<PathBuf>, runs: &[&str]) -> ReportArgs {
    ReportArgs {
        baseline: "tmpfs".to_string(),
        runs: runs.iter().map(|s| s.to_string()).collect(),
        out,
        criterion_dir: Some(criterion.to_path_buf()),
        label: None,
        results_root: PathBuf::from("unused"),
    }
}

fn report(args: &ReportArgs) -> PathBuf {
    match run_report(args) {
        Ok(p) => p,
        Err(e) => panic!("report failed: {e}"),
    }
}

fn read(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn json(path: &Path) -> serde_json::Value {
    match serde_json::from_str(&read(path)) {
        Ok(v) => v,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// The markdown table rows (cells, trimmed) whose first cell is `first`.
fn rows_starting<'a>(md: &'a str, first: &str) -> Vec<Vec<&'a str>> {
    md.lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect::<Vec<_>>()
        })
        .filter(|cells| cells.first() == Some(&first))
        .collect()
}

/// The contents of every `<text>` element of an SVG, trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(body.split_once("</text>")?.0.trim().to_string())
        })
        .collect()
}

/// A CSV line split on commas (the fixture's fields hold no commas or quotes).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn the_full_report_is_written_and_consistent() {
    let tmp = tempdir();
    let out = tmp.path().join("r");
    let dir = report(&args(&fixtures(), Some(out.clone()), &["disk", "nosuchfs"]));
    assert_eq!(dir, out);

    // report.md: one table row per profile per table, a cell per run, durable markers.
    let md = read(&dir.join("report.md"));
    for profile in PROFILES {
        let rows = rows_starting(&md, &format!("`{profile}`"));
        // per scenario: time/slowdown table + overhead table; plus the profiles table and the
        // summary's row (its above-floor and suite ÷ btree, one column each per present run).
        assert_eq!(rows.len(), SCENARIOS.len() * 2 + 2, "{profile}: {rows:?}");
        let summary: Vec<_> = rows.iter().filter(|c| c.len() == 6).collect();
        assert_eq!(summary.len(), 1, "{profile}: {rows:?}");
        for cells in rows.iter().filter(|c| c.len() == 5) {
            let durable = if profile == "lmdb" { DURABLE_YES } else { "no" };
            assert_eq!(cells[1], durable, "{cells:?}");
            assert_ne!(cells[2], MISSING, "{cells:?}");
            assert_ne!(cells[3], MISSING, "{cells:?}");
            assert_eq!(cells[4], "run missing", "{cells:?}");
        }
        let time_rows: Vec<_> = rows
            .iter()
            .filter(|c| c.len() == 5 && c[3].contains(" · "))
            .collect();
        assert_eq!(time_rows.len(), SCENARIOS.len(), "{profile}");
        for cells in time_rows {
            assert!(
                cells[3].contains('×') && cells[3].contains('['),
                "{cells:?}"
            );
        }
    }
    for scenario in &SCENARIOS[1..] {
        assert!(
            md.contains(&format!("### `scenario/{scenario}`")),
            "{scenario}"
        );
    }
    // It opens by questioning itself, then leads with the figures that hold across hosts.
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings[..3],
        [
            "## Can these figures be trusted?",
            "## Summary: figures that hold across hosts first",
            "## About this report"
        ],
        "{headings:?}"
    );
    assert!(md.contains("SHA-512 of 8 KiB"));
    assert!(md.contains("7.12 → 5.28"), "the two-host evidence is cited");
    assert!(md.contains("## Whole suite (`scenario/suite`"));
    assert!(md.contains("_floor: 4 KiB write + fdatasync_"));
    assert!(md.contains("fsync latency (`floor/fsync_4k`)"));
    assert!(md.contains("MB/s"), "SHA-512 throughput is shown");
    assert!(md.contains("| tmpfs (tmpfs), baseline | disk (ext4) | nosuchfs |"));
    assert!(md.contains("### `scale/commit_size/btree`"));
    assert!(md.contains("### `kv/commit/btree`"));
    let missing = md.split("## Missing").nth(1).unwrap_or_default();
    let missing = missing.split("\n## ").next().unwrap_or_default();
    assert!(missing.contains("run `nosuchfs` not found"), "{missing}");
    assert!(
        missing.contains("saved baselines: disk, tmpfs"),
        "{missing}"
    );
    assert!(
        missing.contains("profile `redis-aof` not measured"),
        "{missing}"
    );
    assert!(
        missing.contains("`scenario/delete` not measured"),
        "{missing}"
    );
    assert!(md.contains("![scenario/suite: slowdown vs tmpfs (95% CI)](slowdown.png)"));

    // ratios.json and ratios.csv hold the same rows.
    let parsed: RatiosFile = match serde_json::from_str(&read(&dir.join("ratios.json"))) {
        Ok(p) => p,
        Err(e) => panic!("ratios.json: {e}"),
    };
    assert_eq!(parsed.baseline, "tmpfs");
    assert_eq!(parsed.runs, ["tmpfs", "disk", "nosuchfs"]);
    assert_eq!(parsed.resamples, 10_000);
    let csv = csv_rows(&read(&dir.join("ratios.csv")));
    assert_eq!(csv[0], CSV_COLUMNS.map(str::to_string));
    assert_eq!(csv.len() - 1, parsed.rows.len());
    let col = |name: &str| {
        CSV_COLUMNS
            .iter()
            .position(|c| *c == name)
            .unwrap_or(usize::MAX)
    };
    for (line, row) in csv[1..].iter().zip(&parsed.rows) {
        assert_eq!(line.len(), CSV_COLUMNS.len());
        assert_eq!(line[col("benchmark")], row.benchmark);
        assert_eq!(line[col("run")], row.run);
        assert_eq!(line[col("status")], row.status.as_str());
        // serde_json's default float parsing may be 1 ulp off Rust's exact parse.
        let same = |csv: &str, json: Option<f64>| match (csv.parse::<f64>().ok(), json) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-12 * b.abs(),
            (None, None) => csv.is_empty(),
            _ => false,
        };
        for (name, value) in [
            ("ratio", row.ratio),
            ("ci_low", row.ci_low),
            ("ci_high", row.ci_high),
            ("mean_ns", row.mean_ns),
            ("reference_mean_ns", row.reference_mean_ns),
        ] {
            assert!(same(&line[col(name)], value), "{name} of {row:?}: {line:?}");
        }
        match row.status {
            Status::Ok => {
                let (Some(r), Some(lo), Some(hi)) = (row.ratio, row.ci_low, row.ci_high) else {
                    panic!("ok rows have numbers: {row:?}")
                };
                assert!(lo <= r && r <= hi, "{row:?}");
                let exact =
                    row.mean_ns.unwrap_or(f64::NAN) / row.reference_mean_ns.unwrap_or(f64::NAN);
                assert!((exact - r).abs() / r < 1e-9, "{row:?}");
            }
            _ => {
                assert!(
                    row.ratio.is_none() && line[col("ratio")].is_empty(),
                    "{row:?}"
                );
            }
        }
    }
    let missing_run: Vec<_> = parsed
        .rows
        .iter()
        .filter(|r| r.status == Status::MissingRun)
        .collect();
    assert!(!missing_run.is_empty());
    assert!(missing_run.iter().all(|r| r.run == "nosuchfs"));
    let raw = json(&dir.join("ratios.json"));
    let first_missing = raw["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["status"] == "missing_run"));
    assert!(first_missing.is_some_and(|r| r["ratio"].is_null() && r["ci_low"].is_null()));
    assert!(parsed
        .rows
        .iter()
        .any(|r| r.benchmark == "scenario/update/lmdb" && r.durable == Some(true)));
    assert!(raw["missing"].as_array().is_some_and(|m| !m.is_empty()));

    // SCHEMA.md documents the columns.
    let schema = read(&dir.join("SCHEMA.md"));
    for c in CSV_COLUMNS {
        assert!(schema.contains(c), "SCHEMA.md lacks {c}");
    }

    // env.json
    let env = json(&dir.join("env.json"));
    for key in ["cpu_model", "cores", "ram_bytes", "kernel", "hostname"] {
        assert!(!env["host"][key].is_null(), "host.{key}");
    }
    assert_eq!(env["filesystems"]["tmpfs"]["fs_type"], "tmpfs");
    assert_eq!(env["filesystems"]["disk"]["fs_type"], "ext4");
    assert!(env["filesystems"]["disk"]["mount_options"].is_string());
    assert!(env["filesystems"]["nosuchfs"].is_null());
    for key in ["sqlite", "lmdb", "redis_server", "triebench", "git_commit"] {
        assert!(env["versions"][key].is_string(), "versions.{key}");
    }
    let version = |k: &str| env["versions"][k].as_str().unwrap_or_default().to_string();
    // Criterion's own output records no library versions (a run record does; see
    // report_run_records.rs, and triebench-measure's versions tests for how they are taken).
    for library in ["lmdb", "sqlite", "redis_server"] {
        assert_eq!(version(library), "unknown", "{library}");
    }
    assert_eq!(version("triebench"), env!("CARGO_PKG_VERSION"));

    // Plots: both formats, real content, the right size, names as text.
    let expected = [
        ("slowdown", chart_size(PROFILES.len(), 2)),
        ("time-tmpfs", chart_size(SCENARIOS.len(), PROFILES.len())),
        ("time-disk", chart_size(SCENARIOS.len(), PROFILES.len())),
    ];
    for (stem, (w, h)) in expected {
        let svg_path = dir.join(format!("{stem}.svg"));
        let png_path = dir.join(format!("{stem}.png"));
        let svg = read(&svg_path);
        assert!(svg.len() > 4_000, "{stem}.svg is {} bytes", svg.len());
        let texts = svg_texts(&svg);
        for profile in PROFILES {
            assert!(
                texts.iter().any(|t| t.split(' ').next() == Some(profile)),
                "{stem}.svg has no text naming {profile}: {texts:?}"
            );
        }
        assert!(
            texts.iter().any(|t| t == "lmdb [fsync]"),
            "{stem}.svg marks durable profiles: {texts:?}"
        );
        let bytes = std::fs::read(&png_path).unwrap_or_default();
        assert!(bytes.len() > 8_000, "{stem}.png is {} bytes", bytes.len());
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let info = match decoder.read_info() {
            Ok(reader) => (reader.info().width, reader.info().height),
            Err(e) => panic!("{stem}.png does not decode: {e}"),
        };
        assert_eq!(info, (w, h), "{stem}.png");
    }
    let slowdown = svg_texts(&read(&dir.join("slowdown.svg")));
    assert!(
        slowdown.iter().any(|t| t == "nosuchfs: missing"),
        "{slowdown:?}"
    );
    assert!(slowdown.iter().any(|t| t == "disk"), "legend names the run");
}

#[test]
fn an_absent_baseline_lists_the_existing_ones() {
    let tmp = tempdir();
    let mut a = args(&fixtures(), Some(tmp.path().join("r")), &[]);
    a.baseline = "zfs".to_string();
    match run_report(&a) {
        Err(e @ ReportError::BaselineNotFound { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("`zfs`"), "{msg}");
            assert!(msg.contains("[disk, tmpfs]"), "{msg}");
            assert!(msg.contains("--save-baseline zfs"), "{msg}");
        }
        other => panic!("expected BaselineNotFound, got {other:?}"),
    }
    assert!(!tmp.path().join("r").exists(), "nothing is written");
}

#[test]
fn a_missing_cell_is_listed_and_left_empty() {
    let tmp = tempdir();
    let crit = tmp.path().join("criterion");
    copy_dir(&fixtures(), &crit);
    assert!(std::fs::remove_dir_all(crit.join("scenario_update/lmdb/disk")).is_ok());
    assert!(std::fs::remove_dir_all(crit.join("floor/fsync_4k/disk")).is_ok());
    let dir = report(&args(&crit, Some(tmp.path().join("r")), &["disk"]));
    let md = read(&dir.join("report.md"));
    assert!(md.contains("- `scenario/update/lmdb` not measured on run `disk`"));
    assert!(md.contains("- floor `floor/fsync_4k` not measured on run `disk`"));
    let update = md.split("### `scenario/update`").nth(1).unwrap_or_default();
    let lmdb = rows_starting(update, "`lmdb`");
    assert_eq!(lmdb.first().map(|c| c[3]), Some(MISSING), "{lmdb:?}");
    let parsed: RatiosFile = match serde_json::from_str(&read(&dir.join("ratios.json"))) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let cell: Vec<_> = parsed
        .rows
        .iter()
        .filter(|r| r.benchmark == "scenario/update/lmdb" && r.run == "disk")
        .collect();
    assert_eq!(cell.len(), 2, "slowdown and overhead rows: {cell:?}");
    assert!(cell
        .iter()
        .all(|r| r.status == Status::MissingMeasurement && r.ratio.is_none()));
    let csv = read(&dir.join("ratios.csv"));
    assert!(csv.lines().any(
        |l| l.starts_with("slowdown_vs_baseline,scenario/update/lmdb,")
            && l.contains(",,,,")
            && l.ends_with("missing_measurement,0.95")
    ));
    assert!(parsed
        .missing
        .iter()
        .any(|m| m.what.as_deref() == Some("scenario/update/lmdb")));
}

#[test]
fn defaults_take_every_saved_run_and_name_the_folder() {
    let tmp = tempdir();
    let mut a = args(&fixtures(), None, &[]);
    a.results_root = tmp.path().to_path_buf();
    let dir = report(&a);
    assert_eq!(dir.parent(), Some(tmp.path()));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    assert!(name.ends_with("-tmpfs-disk"), "{name}");
    assert_eq!(
        name.as_bytes().get(4),
        Some(&b'-'),
        "{name} starts with a date"
    );
    let md = read(&dir.join("report.md"));
    assert!(md.contains("--runs disk"));
    let parsed = json(&dir.join("ratios.json"));
    assert_eq!(parsed["runs"], serde_json::json!(["tmpfs", "disk"]));
}

#[test]
fn reports_are_reproducible() {
    let tmp = tempdir();
    let one = report(&args(&fixtures(), Some(tmp.path().join("a")), &["disk"]));
    let two = report(&args(&fixtures(), Some(tmp.path().join("b")), &["disk"]));
    assert_eq!(
        read(&one.join("ratios.csv")),
        read(&two.join("ratios.csv")),
        "seeded bootstrap"
    );
}
