//! `triebench smallbank --transact <durable state>`'s parent side against runners that
//! misbehave (scripts standing in for `transact-runner`): a side whose changes differ stops
//! the run at that block, a runner that dies is reported with what it said, a missing runner
//! and a directory an earlier run left are refused before anything runs. (The real
//! `transact-runner` on Transact's LMDB, SQLite and PostgreSQL states is tested in
//! crates/transact-compare/tests/smallbank.rs.)

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use triebench_smallbank::{run, Family, SmallbankError, SmallbankOptions, TransactStore};

use triebench_merkle::EMPTY_ROOT;

fn options(dir: &Path, runner: PathBuf) -> SmallbankOptions {
    SmallbankOptions {
        family: Family::Smallbank,
        profile: "btree".into(),
        dir: Some(dir.join("state")),
        accounts: 10,
        transactions: 40,
        block_size: 10,
        seed: 3,
        trace: None,
        transact: TransactStore::Runner {
            implementation: "transact-0.4.7:lmdb".into(),
            runner,
            remove_pruned: false,
        },
    }
}

/// A shell script at `dir/runner` with `body` after the shebang.
fn script(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("runner");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_block_whose_changes_differ_stops_the_run_there() {
    let dir = tempfile::tempdir().unwrap();
    // Ready, then for each block the same wrong answer.
    let runner = script(
        dir.path(),
        &format!(
            r#"echo '{{"reply":"ready","initial_root":"{EMPTY_ROOT}","fsyncs_per_commit":false}}'
while read line; do
  echo '{{"reply":"block","root":"00","changes":1,"changes_sha256":"00","valid":1,"invalid":0,"execute_ns":1,"commit_ns":1,"written_bytes":0}}'
done"#
        ),
    );
    let mut progressed = 0;
    let err = run(&options(dir.path(), runner), &mut |p| progressed = p.block).unwrap_err();
    assert!(
        matches!(err, SmallbankError::ChangesMismatch { block: 1, .. }),
        "{err}"
    );
    assert_eq!(progressed, 0, "no block counted as done");
}

#[test]
fn a_runner_that_dies_is_reported_with_what_it_said() {
    let dir = tempfile::tempdir().unwrap();
    let runner = script(
        dir.path(),
        r#"echo "error: opening transact-0.4.7:lmdb: no space left on device" >&2; exit 1"#,
    );
    let err = run(&options(dir.path(), runner), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("no space left on device"), "{err}");
    assert!(
        !dir.path().join("state").join("transact").exists(),
        "a failed start takes back what it made"
    );
}

#[test]
fn a_runner_that_differs_on_the_empty_root_stops_before_any_block() {
    let dir = tempfile::tempdir().unwrap();
    let runner = script(
        dir.path(),
        r#"echo '{"reply":"ready","initial_root":"ab","fsyncs_per_commit":false}'; read line"#,
    );
    let err = run(&options(dir.path(), runner), &mut |_| {}).unwrap_err();
    assert!(
        matches!(err, SmallbankError::RootMismatch { block: 0, .. }),
        "{err}"
    );
}

#[test]
fn a_missing_runner_says_how_to_build_one() {
    let dir = tempfile::tempdir().unwrap();
    let err = run(
        &options(dir.path(), dir.path().join("no-such-runner")),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("crates/transact-compare"), "{err}");
}

#[test]
fn an_earlier_runs_transact_directory_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let left = dir.path().join("state").join("transact");
    std::fs::create_dir_all(&left).unwrap();
    std::fs::write(left.join("keep"), b"earlier").unwrap();
    let runner = script(dir.path(), "exit 1");
    let err = run(&options(dir.path(), runner), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read(left.join("keep")).unwrap(), b"earlier");
}

#[test]
fn a_durable_transact_state_needs_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let runner = script(dir.path(), "exit 1");
    let options = SmallbankOptions {
        dir: None,
        ..options(dir.path(), runner)
    };
    let err = run(&options, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("--dir"), "{err}");
}
