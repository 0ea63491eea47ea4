//! The `triebench smallbank` and `triebench field` commands: a short SmallBank chain writes its
//! JSON result and a trace that `triebench root` replays to the same roots; an unknown profile,
//! a directory under a file and an unknown field workload are one clear error each, exit 1;
//! `field --workload merk` records Merk's three figures.

mod common;

use std::process::Output;

use common::triebench;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_short_chain_writes_its_result_and_a_replayable_trace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r/smallbank.json");
    let trace = dir.path().join("trace.jsonl");
    let state = dir.path().join("state");
    let run = triebench(&[
        "smallbank",
        "--profile",
        "lmdb",
        "--dir",
        state.to_str().unwrap(),
        "--accounts",
        "10",
        "--transactions",
        "40",
        "--block-size",
        "10",
        "--out",
        out.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("| triebench (lmdb) |"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["blocks"], 5);
    assert!(dir.path().join("r/env.json").exists());
    let replay = triebench(&["root", trace.to_str().unwrap()]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    let roots = std::fs::read_to_string(dir.path().join("trace.jsonl.roots")).unwrap();
    assert_eq!(String::from_utf8_lossy(&replay.stdout), roots);
    assert_eq!(roots.lines().last(), json["final_root"].as_str());
}

#[test]
fn an_unknown_profile_is_one_error() {
    let run = triebench(&["smallbank", "--profile", "nope"]);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert!(err.contains("unknown backend profile `nope`"), "{err}");
}

#[test]
fn a_transact_state_without_a_runner_or_of_0_3_7_is_one_error() {
    // No runner beside the test binary's triebench and none named: how to build one.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-runner");
    let run = triebench(&[
        "smallbank",
        "--profile",
        "btree",
        "--dir",
        dir.path().to_str().unwrap(),
        "--transact",
        "transact-0.4.7:lmdb",
        "--transact-runner",
        missing.to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(err.contains("crates/transact-compare"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A failed start takes back what it made, so the same command can run again.
    assert!(!dir.path().join("transact").exists(), "nothing left");

    let run = triebench(&[
        "smallbank",
        "--transact",
        "transact-0.4.7:lmdb",
        "--transact-remove-pruned",
    ]);
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(err.contains("whose prune only marks rows"), "{err}");

    let run = triebench(&["smallbank", "--transact", "transact-0.3.7:lmdb"]);
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(err.contains("Transact 0.3.7 has no executor"), "{err}");
}

#[test]
fn the_command_family_runs_and_an_unknown_family_is_one_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("command.json");
    let run = triebench(&[
        "smallbank",
        "--family",
        "command",
        "--accounts",
        "5",
        "--transactions",
        "20",
        "--block-size",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["family"], "command");
    assert_eq!(v["valid_transactions"], 25);
    let run = triebench(&["smallbank", "--family", "xo"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("unknown family `xo`; the families are smallbank, command"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn a_directory_under_a_file_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let bad = file.join("state");
    let run = triebench(&[
        "smallbank",
        "--profile",
        "lmdb",
        "--dir",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("as the state directory"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn an_unknown_field_workload_lists_them() {
    let run = triebench(&["field", "--workload", "nope"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("firewood-tenkrandom") && stderr(&run).contains("merk"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn field_merk_records_its_inserts_updates_and_reads_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("merk.json");
    let run = triebench(&[
        "field",
        "--workload",
        "merk",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("inserts/s") && stdout.contains("reads/s"),
        "{stdout}"
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(record["workload"], "merk");
    assert_eq!(record["reads"], 2_000);
    for figure in ["inserts_per_s", "updates_per_s", "reads_per_s"] {
        assert!(record[figure].as_f64().is_some_and(|r| r > 0.0), "{record}");
    }
}
