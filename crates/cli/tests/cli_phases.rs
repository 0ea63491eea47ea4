//! `triebench root --phases FILE` on a real sqlite-wal store: the per-phase totals account for
//! the measured total (within 10%, the accounting promise; not a speed assertion), and
//! `--flamegraph FILE` writes an SVG; `triebench phases` saves a row per scenario and what idle
//! CPUs did, and its flamegraph samples the profiles' runs, not the trie's warm-up.

#![cfg(feature = "sqlite-db")]

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha512};

/// 200 single-key commits with production-length (70-char) addresses.
fn commit_file() -> String {
    let mut out = String::new();
    for i in 0..200u64 {
        let key = format!("{i:016x}");
        let address = &hex::encode(Sha512::digest(key.as_bytes()))[..70];
        let _ = writeln!(
            out,
            r#"{{"set": {{"{address}": "{}"}}}}"#,
            hex::encode(&key)
        );
    }
    out
}

/// Replays the commit file on a fresh sqlite-wal store with `extra` arguments; returns stderr.
fn root(dir: &Path, input: &Path, store: &str, extra: &[&std::ffi::OsStr]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(["root", "--backend", "sqlite-wal", "--dir"])
        .arg(dir.join(store))
        .args(extra)
        .arg(input)
        .output()
        .expect("triebench runs");
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 200);
    stderr
}

const PHASES: [&str; 6] = [
    "storage_read",
    "hash",
    "encode",
    "storage_write",
    "commit",
    "trie",
];

#[test]
fn root_phases_sum_to_the_measured_total_on_sqlite_wal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("commits.jsonl");
    std::fs::write(&input, commit_file()).expect("commit file written");
    // Every step of a commit runs inside a phase span, and the collector gives every moment
    // inside the outermost span to some phase (its own bookkeeping included), so only the
    // replay loop (parsing a line, printing a root) is outside: 2-7% when the test runs alone,
    // 10.5% in one CI run while the Transact comparator compiled on both cores (a busy machine
    // preempts the loop too, and a preempted moment counts where it falls). A phase left
    // untraced would leave far more: `commit` and `storage_write` are each ~20%.
    let phases = dir.path().join("phases.json");
    let stderr = root(
        dir.path(),
        &input,
        "store",
        &["--phases".as_ref(), phases.as_os_str()],
    );
    for phase in PHASES {
        assert!(stderr.contains(phase), "`{phase}` not printed: {stderr}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&phases).expect("phases written"))
            .expect("phases JSON");
    let total = json["total_ns"].as_u64().expect("total_ns");
    let map = json["phases"].as_object().expect("phases object");
    let sum: u64 = map.values().map(|v| v.as_u64().expect("ns")).sum();
    for phase in PHASES {
        assert!(
            map.get(phase).and_then(|v| v.as_u64()).unwrap_or(0) > 0,
            "{json}"
        );
    }
    // The 200 commits, and the empty root node a fresh store gets first.
    assert_eq!(json["spans"]["commit"].as_u64(), Some(201), "{json}");
    assert!(sum <= total, "phases {sum} ns exceed the total {total} ns");
    assert!(
        sum as f64 >= 0.85 * total as f64,
        "phases {:.1}% of the total: {json}",
        100.0 * sum as f64 / total as f64
    );
}

#[test]
fn root_flamegraph_writes_an_svg() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("commits.jsonl");
    std::fs::write(&input, commit_file()).expect("commit file written");
    let flame = dir.path().join("flame.svg");
    root(
        dir.path(),
        &input,
        "store",
        &["--flamegraph".as_ref(), flame.as_os_str()],
    );
    let svg = std::fs::read_to_string(&flame).expect("flamegraph written");
    assert!(svg.contains("<svg"), "not an SVG");
}

#[test]
fn load_phases_time_the_writer_and_refuse_readers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let phases = dir.path().join("phases.json");
    let load = |readers: &str| {
        Command::new(env!("CARGO_BIN_EXE_triebench"))
            .args(["load", "--backend", "sqlite-wal", "--state-size", "50"])
            .args([
                "--readers",
                readers,
                "--rate",
                "5",
                "--duration",
                "1s",
                "--no-plots",
            ])
            .arg("--dir")
            .arg(dir.path().join(format!("store-{readers}")))
            .arg("--out")
            .arg(dir.path().join("out"))
            .arg("--phases")
            .arg(&phases)
            .output()
            .expect("triebench runs")
    };
    let refused = load("2");
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--readers 0"));

    let output = load("0");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&phases).expect("phases written"))
            .expect("phases JSON");
    assert_eq!(json["scenario"], "load");
    let commits = json["commits"].as_u64().expect("commits");
    assert!(commits > 0, "{json}");
    assert_eq!(json["spans"]["commit"].as_u64(), Some(commits), "{json}");
    for phase in ["storage_read", "hash", "storage_write", "commit"] {
        assert!(
            json["phases"][phase].as_u64().unwrap_or(0) > 0,
            "{phase}: {json}"
        );
    }
    // The total is the writer's time in its commits, which holds every phase.
    let total = json["total_ns"].as_u64().expect("total_ns");
    let phased: u64 = json["phases"]
        .as_object()
        .expect("phases")
        .values()
        .filter_map(serde_json::Value::as_u64)
        .sum();
    assert!(phased <= total, "{json}");
    // And not the run's wall time: at 5 commits/s the open-loop writer waits for each commit's
    // turn whenever a commit ends before the next is due. The run's own record says whether
    // that happened (each commit's latency counts from its turn, so `commits x max` bounds the
    // time in commits); a host too slow to leave a wait proves nothing either way and only the
    // accounting above is checked. No bound on how long anything takes.
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out").join("load.json")).expect("load.json"),
    )
    .expect("load JSON");
    let run = &record["headline"];
    let elapsed_ns = run["elapsed_s"].as_f64().expect("elapsed_s") * 1e9;
    let in_commits_ns = run["commit"]["count"].as_f64().expect("count")
        * run["commit"]["max_us"].as_f64().expect("max_us")
        * 1e3;
    if run["missed"] == 0 && 2.0 * in_commits_ns < elapsed_ns {
        assert!(
            (total as f64) < elapsed_ns,
            "the waits were counted: {json}\n{record}"
        );
    }
}

/// Runs `triebench phases --run RUN --profiles PROFILE --cpu-idle os` on fresh stores under
/// `dir`, writing `out`, with `extra` arguments; asserts it succeeded.
fn phases(dir: &Path, run: &str, profile: &str, out: &Path, extra: &[&std::ffi::OsStr]) {
    let stores = dir.join("stores");
    std::fs::create_dir_all(&stores).expect("stores dir");
    let o = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(["phases", "--run", run, "--profiles", profile])
        .args(["--cpu-idle", "os"])
        .arg("--dir")
        .arg(&stores)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("triebench runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn phases_command_saves_every_scenario_and_what_idle_cpus_did() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("phases-fast.json");
    phases(dir.path(), "fast", "btree", &out, &[]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("phases written"))
            .expect("json");
    assert_eq!(json["run"], "fast");
    // Ten scenarios and the suite.
    assert_eq!(json["rows"].as_array().map(Vec::len), Some(11), "{json}");
    assert_eq!(json["cpu_idle"]["requested"], "os", "{json}");
    assert_eq!(json["cpu_idle"]["held"], "os", "{json}");
}

#[test]
fn phases_flamegraph_leaves_out_the_trie_warm_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flame = dir.path().join("flame.svg");
    let out = dir.path().join("phases.json");
    phases(
        dir.path(),
        "flame",
        "sqlite-wal",
        &out,
        &["--flamegraph".as_ref(), flame.as_os_str()],
    );
    let svg = std::fs::read_to_string(&flame).expect("flamegraph written");
    // Every warm-up sample's stack holds the warm-up's visitor; the profiles' runs hold
    // `phases_run`'s.
    assert!(svg.contains("phases_run"), "the measured runs are missing");
    assert!(!svg.contains("trie_warm_up"), "the warm-up was sampled");
}
