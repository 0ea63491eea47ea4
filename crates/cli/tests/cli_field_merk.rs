//! `triebench field --workload merk` with Merk's own code beside ours (`--merk-runner`): a
//! runner's figures land in the record and the printed line when it ran the same commits; a
//! missing, failing or foreign runner, commits that differ, a runner for another workload and
//! a Merk directory left by an earlier run are one clear error line each; Merk's directory is
//! removed whatever happens. A stand-in runner (a shell script) plays Merk's side: the real one
//! is built on a nightly Rust apart (crates/merk-compare, whose own tests run it).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::triebench;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An executable shell script at `dir/name` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `triebench field --workload merk` on btree at scale 1, its store directory `dir`.
fn field_merk(dir: &Path, runner: &Path, out: &Path) -> Output {
    triebench(&[
        "field",
        "--workload",
        "merk",
        "--dir",
        dir.to_str().unwrap(),
        "--merk-runner",
        runner.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

/// A stand-in runner's line: Merk's figures, with the commits' digest `sha`.
fn merk_line(sha: &str) -> String {
    format!(
        r#"{{"engine":"Merk 2.0.1","rocksdb":"7.8.3","synced":false,"scale":1,"seed":1,"setup_batches":5,"inserts":2000,"updates":2000,"reads":2000,"reads_checked":2000,"setup_s":0.5,"inserts_s":0.1,"updates_s":0.1,"reads_s":0.01,"inserts_per_s":20000.0,"updates_per_s":20000.0,"reads_per_s":200000.0,"final_root":"{root}","bytes_on_disk":12345,"commits_sha256":"{sha}"}}"#,
        root = "ab".repeat(20)
    )
}

#[test]
fn merks_side_is_recorded_when_it_ran_the_same_commits() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    // Ours alone first, for the digest of the commits (a stand-in cannot compute it).
    let first = dir.path().join("first.json");
    let missing = script(dir.path(), "fails", "echo 'merk-runner: boom' >&2; exit 1");
    let run = field_merk(&store, &missing, &first);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    let last = err.trim().lines().last().unwrap_or_default();
    assert!(
        last.contains("Merk's side") && last.contains("merk-runner: boom"),
        "{err}"
    );
    assert!(!store.join("merk").exists(), "Merk's directory removed");

    // A stand-in that prints the digest of another workload's commits is refused.
    let other = script(
        dir.path(),
        "other",
        &format!("echo '{}'", merk_line(&"0".repeat(64))),
    );
    let out = dir.path().join("merk.json");
    let run = field_merk(&store, &other, &out);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert!(err.contains("ran other commits than ours"), "{err}");
    assert!(!out.exists(), "no record of a run whose sides differ");

    // Without --merk-runner (ours alone, or beside a merk-runner built next to triebench):
    // the record has the digest of the commits.
    let none = dir.path().join("ours.json");
    let run = triebench(&[
        "field",
        "--workload",
        "merk",
        "--out",
        none.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let ours: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&none).unwrap()).unwrap();
    let sha = ours["commits_sha256"].as_str().unwrap().to_string();
    assert_eq!(sha.len(), 64);

    let same = script(dir.path(), "same", &format!("echo '{}'", merk_line(&sha)));
    let run = field_merk(&store, &same, &out);
    assert!(run.status.success(), "{}", stderr(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout
            .contains("Merk 2.0.1's own code (RocksDB 7.8.3, unsynced), measured in the same run")
            && stdout.contains("ours ÷ Merk's"),
        "{stdout}"
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(record["merk"]["inserts_per_s"], 20_000.0);
    assert_eq!(record["merk"]["commits_sha256"], sha.as_str());
    assert!(!store.join("merk").exists(), "Merk's directory removed");
}

#[test]
fn a_missing_or_foreign_runner_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("merk.json");
    let run = field_merk(dir.path(), &dir.path().join("no-runner"), &out);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("is not a file") && err.contains("crates/merk-compare"),
        "{err}"
    );

    // A program that prints something else than Merk's figures.
    let foreign = script(dir.path(), "foreign", "echo hello");
    let run = field_merk(dir.path(), &foreign, &out);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    let last = err.trim().lines().last().unwrap_or_default();
    assert!(
        last.contains("printed `hello`, not Merk's figures"),
        "{err}"
    );
    assert!(!dir.path().join("merk").exists());

    // An earlier run's Merk directory is refused before anything runs.
    std::fs::create_dir(dir.path().join("merk")).unwrap();
    let run = field_merk(dir.path(), &foreign, &out);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("left by an earlier run"), "{err}");
    assert!(dir.path().join("merk").exists(), "not ours to remove");

    // A runner for a workload that has none.
    let run = triebench(&[
        "field",
        "--workload",
        "iavl-bank",
        "--merk-runner",
        foreign.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("--merk-runner is for --workload merk"),
        "{err}"
    );
}
