//! `triebench grow`: a small curve on btree and lmdb writes grow.json with every field, leaf
//! counts ascending, a CSV per checkpoint, and (with --memory, where a memory cgroup can be
//! made) the cgroup's bound, a bound too small refused up front and a tight one met by
//! smaller fill batches; `grow-report` turns the curves into the section and its plots.
//! No speed is asserted.

mod common;

use std::path::Path;

use common::triebench;
use serde_json::Value;

fn grow(backend: &str, dir: Option<&Path>, out: &Path, extra: &[&str]) -> std::process::Output {
    let out_s = out.display().to_string();
    let dir_s = dir.map(|d| d.display().to_string());
    let mut args = vec![
        "grow",
        "--backend",
        backend,
        "--max-leaves",
        "3000",
        "--fill-batch",
        "700",
        "--commits",
        "8",
        "--reads",
        "20",
        "--out",
        &out_s,
    ];
    if let Some(d) = &dir_s {
        args.extend(["--dir", d.as_str()]);
    }
    args.extend(extra);
    triebench(&args)
}

fn checkpoints(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("grow.json")).expect("grow.json");
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["schema"], 1);
    v["checkpoints"].as_array().expect("checkpoints").clone()
}

fn check_curve(out: &Path, cold: bool) {
    let cps = checkpoints(out);
    let leaves: Vec<u64> = cps.iter().map(|c| c["leaves"].as_u64().unwrap()).collect();
    assert_eq!(leaves, [1000, 3000]);
    for c in &cps {
        let n = c["leaves"].as_f64().unwrap();
        assert!(c["fill_leaves_per_sec"].as_f64().unwrap() > 0.0);
        for (field, count) in [("commit_1", 8), ("commit_100", 5)] {
            let lat = &c[field]["latency"];
            assert_eq!(lat["count"], count, "{field}");
            let (p50, p99, max) = (
                lat["p50_us"].as_f64().unwrap(),
                lat["p99_us"].as_f64().unwrap(),
                lat["max_us"].as_f64().unwrap(),
            );
            assert!(
                0.0 < p50 && p50 <= p99 && p99 <= max * 1.001,
                "{field}: {lat}"
            );
        }
        assert_eq!(c["read_warm"]["count"], 20);
        assert_eq!(c["read_cold"].is_object(), cold, "{c}");
        // 70-hex addresses: about 31 nodes per leaf at these sizes, far fewer compressed.
        let npl = c["nodes_per_leaf"].as_f64().unwrap();
        assert!((29.0..34.0).contains(&npl), "{npl}");
        let w = &c["what_if"];
        assert!(w["compressed_nodes"].as_f64().unwrap() < 2.5 * n);
        assert!(w["compressed_bytes"].as_u64().unwrap() < w["bytes"].as_u64().unwrap());
        // The commits' replaced roots are pruned: the store holds the tip's nodes (and the
        // empty root's), not the fill's and the commits' history.
        let (stored, live) = (
            c["stored_nodes"].as_u64().unwrap(),
            w["nodes"].as_u64().unwrap(),
        );
        assert!(
            (live..=live + 1).contains(&stored),
            "{stored} stored, {live} live"
        );
        if let Some(tables) = c["space"]["tables"].as_array() {
            let log = tables
                .iter()
                .find(|t| t["table"] == "change_log")
                .expect("change_log");
            // The tip's entry and its additions, stored apart (`triebench_merkle::changelog`).
            assert_eq!(log["entries"], 2, "the tip's entry only: {log}");
        }
        assert!(c["rss_bytes"].as_u64().unwrap() > 0);
        let csv = std::fs::read_to_string(out.join(format!("checkpoint-{n}.csv"))).expect("csv");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
    }
}

#[test]
fn btree_grows_without_cold_reads_and_the_report_plots_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("memory").join("btree");
    // The floor in the trie's order only: no shuffled store, no shuffled figure.
    let floor = tmp.path().join("floor").display().to_string();
    let only_sorted = ["--fill-floor", &floor, "--fill-floor-trie-order-only"];
    let run = grow("btree", None, &out, &only_sorted);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let table = String::from_utf8_lossy(&run.stdout);
    assert!(
        table.contains("leaves") && table.contains("3000"),
        "{table}"
    );
    assert_eq!(table.matches("shuffled not run").count(), 2, "{table}");
    check_curve(&out, false);
    let cps = checkpoints(&out);
    assert_eq!(cps[0]["disk_bytes"], 0);
    for c in &cps {
        assert!(
            c["fill_floor"]["sorted_secs"].as_f64().unwrap() > 0.0,
            "{c}"
        );
        assert!(c["fill_floor"].get("shuffled_secs").is_none(), "{c}");
    }

    let report = triebench(&["grow-report", &tmp.path().display().to_string()]);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let md = std::fs::read_to_string(tmp.path().join("grow-report.md")).unwrap();
    assert!(md.contains("## How cost grows with state"), "{md}");
    assert!(md.contains("| btree | memory | 3000 |"), "{md}");
    assert!(md.contains("× / — |"), "no shuffled floor: {md}");
    assert!(tmp.path().join("plots/grow-commit1-p99.svg").is_file());
    assert!(tmp.path().join("plots/grow-bytes.png").is_file());
}

#[test]
fn lmdb_grows_with_cold_reads_and_bytes_on_disk() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = tmp.path().join("store");
    let out = tmp.path().join("out");
    let floor = tmp.path().join("floor");
    let floor_s = floor.display().to_string();
    let run = grow("lmdb", Some(&store), &out, &["--fill-floor", &floor_s]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    check_curve(&out, true);
    let cps = checkpoints(&out);
    // The fill's storage floor: both stores made, a line per checkpoint, the figures saved.
    assert!(floor.join("sorted").is_dir() && floor.join("shuffled").is_dir());
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        stdout.matches("fill floor: ").count(),
        cps.len(),
        "{stdout}"
    );
    for c in &cps {
        let f = &c["fill_floor"];
        assert!(f["sorted_secs"].as_f64().unwrap() > 0.0, "{c}");
        assert!(f["shuffled_secs"].as_f64().unwrap() > 0.0, "{c}");
        assert!(f["entries"].as_u64().unwrap() > 0, "{c}");
    }
    let disk: Vec<u64> = cps
        .iter()
        .map(|c| c["disk_bytes"].as_u64().unwrap())
        .collect();
    assert!(disk[0] > 0 && disk[1] > disk[0], "{disk:?}");
    let text = std::fs::read_to_string(out.join("grow.json")).unwrap();
    assert!(text.contains("posix_fadvise"), "the cold method is stated");
    // The report's row gives the fill over both floors and the store over its data.
    let report = triebench(&["grow-report", &out.display().to_string()]);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let md = std::fs::read_to_string(out.join("grow-report.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| lmdb |"))
        .unwrap_or_else(|| panic!("{md}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let floor_cell = cells[6];
    assert!(
        floor_cell.contains("× / ") && floor_cell.ends_with('×'),
        "{row}"
    );
    assert!(cells[12].contains("×)"), "store over data: {row}");
}

#[test]
fn lmdb_compacted_after_each_fill_drops_its_free_pages_and_keeps_its_leaves() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let out = tmp.path().join("out");
    let run = grow("lmdb", Some(&store), &out, &["--compact-after-fill"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("compacted"),
        "the compaction is shown as it runs"
    );
    let table = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        table.matches("compacted after the fill: data file").count(),
        2,
        "a line under each checkpoint's row: {table}"
    );
    // Every checkpoint still reads its leaves back (a leaf read as absent fails the run), and
    // each records a compaction that shrank the data file.
    check_curve(&out, true);
    for c in &checkpoints(&out) {
        let done = &c["compaction"];
        let before = done["bytes_before"].as_u64().unwrap();
        let after = done["bytes_after"].as_u64().unwrap();
        assert!(after > 0 && after < before, "{c}");
    }
    // A profile without a compaction is refused before anything is made.
    let sqlite = tmp.path().join("sqlite");
    let run = grow(
        "sqlite-wal",
        Some(&sqlite),
        &tmp.path().join("out2"),
        &["--compact-after-fill"],
    );
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("cannot be compacted"), "{err}");
    assert!(!sqlite.exists(), "nothing made for a refused run");
}

#[test]
fn a_fill_floor_inside_the_store_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let inside = store.join("floor").display().to_string();
    let run = grow(
        "lmdb",
        Some(&store),
        &tmp.path().join("out"),
        &["--fill-floor", &inside],
    );
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("--fill-floor and --dir must not hold one another"),
        "{err}"
    );
}

#[test]
fn a_non_empty_store_directory_is_refused_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep.txt"), b"mine").unwrap();
    let run = grow("lmdb", Some(tmp.path()), &tmp.path().join("out"), &[]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("is not empty"), "{err}");
    assert_eq!(std::fs::read(tmp.path().join("keep.txt")).unwrap(), b"mine");
}

#[test]
fn memory_bound_is_recorded() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = tmp.path().join("store");
    let out = tmp.path().join("out");
    let run = grow("lmdb", Some(&store), &out, &["--memory", "96M"]);
    let err = String::from_utf8_lossy(&run.stderr);
    if !run.status.success() && err.contains("no memory cgroup is usable") {
        eprintln!("SKIPPED: no memory cgroup can be made here: {err}");
        return;
    }
    assert!(run.status.success(), "{err}");
    assert!(err.contains("in memory cgroup"), "{err}");
    let table = String::from_utf8_lossy(&run.stdout);
    assert!(
        table.contains("cgroup") && table.contains("/96 MiB"),
        "{table}"
    );
    for c in checkpoints(&out) {
        let m = &c["memory"];
        assert_eq!(m["limit_bytes"], 96u64 << 20, "{m}");
        assert!(m["usage_bytes"].as_u64().unwrap() > 0, "{m}");
        assert!(m["usage_bytes"].as_u64().unwrap() <= 96 << 20, "{m}");
        assert_eq!(m["held"], true, "{m}");
        assert!(["v1", "v2"].contains(&m["cgroup_version"].as_str().unwrap()));
    }
}

/// A bound far below what the run needs is refused before anything starts, in one line that
/// names the least bound that fits; nothing is filled and no cgroup is left behind.
#[test]
fn a_bound_below_the_need_is_refused_up_front() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = tmp.path().join("store");
    let out = tmp.path().join("out");
    let run = grow("lmdb", Some(&store), &out, &["--memory", "8M"]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("--memory 8 MiB is below what this run needs")
            && lines[0].contains("give at least"),
        "{err}"
    );
    assert!(!out.join("grow.json").exists());
    assert!(!store.exists(), "nothing was filled");
}

/// A bound the run fits in only with smaller fill batches: the batch is shrunk to fit, said
/// so, recorded, and the run completes within the bound (before, it was killed by the OOM
/// killer with no message).
#[test]
fn a_tight_bound_shrinks_the_fill_batch_and_completes() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = tmp.path().join("store");
    let out = tmp.path().join("out");
    // The helper asks for 700-leaf batches: ~88 MiB in flight on lmdb.
    let run = grow("lmdb", Some(&store), &out, &["--memory", "80M"]);
    let err = String::from_utf8_lossy(&run.stderr);
    if !run.status.success() && err.contains("no memory cgroup is usable") {
        eprintln!("SKIPPED: no memory cgroup can be made here: {err}");
        return;
    }
    assert!(run.status.success(), "{err}");
    assert!(err.contains("fewer to fit the bound"), "{err}");
    let text = std::fs::read_to_string(out.join("grow.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let batch = v["fill_batch"].as_u64().unwrap();
    assert!((100..700).contains(&batch), "{batch}");
    assert!(v["fill"].as_str().unwrap().contains("sized to --memory"));
    for c in checkpoints(&out) {
        assert_eq!(c["memory"]["held"], true, "{}", c["memory"]);
    }
}

/// `--net-rtt` puts the delay proxy between redis and its store and says so in grow.json.
#[cfg(feature = "redis-db")]
#[test]
fn net_rtt_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let out = dir.path().join("out");
    let o = grow("redis", Some(&store), &out, &["--net-rtt", "200us"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("grow.json")).expect("grow.json");
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["net"]["rtt_us"].as_f64(), Some(200.0), "{}", v["net"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("delay proxy"),
        "the run says it goes through the proxy"
    );
}
