//! `triebench crash-test --model` end to end on real stores through a real slowfs mount
//! (skipped without FUSE, except under `CI=true`): the durable profiles `lmdb` and
//! `sqlite-wal-full` (whichever this build has) show no violation under any model — for
//! `lmdb` under `metadata` and `reordered` that is the regression test of its atomic creation
//! (it lost `data.mdb`, or never opened again, before) — and `sqlite-rollback` under
//! `metadata` shows the engine's known gap (the journal's unlink is not synced), with a rerun
//! command that reproduces it. `--fsync-eio` reports on one profile.

mod common;

use std::path::Path;
use std::process::Command;

use common::crash::{run_crash_test, skip_without_fuse};
use triebench_kv::Profile;

const BIN: &str = env!("CARGO_BIN_EXE_triebench");

fn explore(backend: &str, tmp: &Path, extra: &[&str]) -> String {
    let mut args = vec!["--backend", backend, "--power-loss", "--seed", "3"];
    args.extend(["--rounds", "1", "--commits", "4", "--states-per-point", "3"]);
    args.extend(extra);
    run_crash_test(tmp, &args)
}

fn fuse_missing() -> bool {
    skip_without_fuse()
}

fn built(name: &str) -> bool {
    name.parse::<Profile>().is_ok_and(|p| p.is_enabled())
}

#[test]
fn durable_profiles_show_no_violation_under_any_model() {
    if fuse_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for backend in ["lmdb", "sqlite-wal-full"].into_iter().filter(|b| built(b)) {
        for model in ["clean", "metadata", "reordered", "torn"] {
            let summary = explore(backend, tmp.path(), &["--model", model]);
            assert!(
                summary.contains(" 0 violations"),
                "{backend} {model}: {summary}"
            );
            assert!(!summary.contains(" 0 states explored"), "{summary}");
        }
    }
}

#[test]
fn sqlite_rollback_loses_a_commit_when_the_journal_unlink_is_not_synced() {
    if fuse_missing() || !built("sqlite-rollback") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let summary = explore("sqlite-rollback", tmp.path(), &["--model", "metadata"]);
    assert!(!summary.contains(" 0 violations"), "{summary}");
    let rerun = summary
        .lines()
        .find_map(|l| l.trim().strip_prefix("rerun: triebench "))
        .unwrap_or_else(|| panic!("no rerun command: {summary}"));
    let out = Command::new(BIN)
        .args(rerun.split_whitespace())
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    let again = String::from_utf8_lossy(&out.stdout);
    assert!(
        again.contains(" 1 states explored") && again.contains(" 1 violations"),
        "{again}"
    );
}

#[test]
fn fsync_eio_reports_what_the_store_did() {
    if fuse_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = explore("lmdb", tmp.path(), &["--fsync-eio"]);
    assert!(out.contains("failed with EIO; the commit"), "{out}");
}

#[test]
fn postgres_is_explored_from_the_open_store_and_its_states_reopen() {
    if fuse_missing() || !built("postgres") || !have_postgres() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let summary = run_crash_test(
        tmp.path(),
        &[
            "--backend",
            "postgres",
            "--power-loss",
            "--seed",
            "3",
            "--model",
            "clean",
            "--rounds",
            "1",
            "--commits",
            "1",
            "--between",
            "0",
            "--max-points",
            "12",
        ],
    );
    assert!(summary.contains("from the open store on"), "{summary}");
    assert!(summary.contains(" 12 crash points ("), "{summary}");
    assert!(summary.contains(" 0 violations"), "{summary}");
    assert!(!summary.contains(" 0 states explored"), "{summary}");
}

/// Whether PostgreSQL's `initdb` is installed (on PATH or in Debian's versioned directory).
fn have_postgres() -> bool {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("initdb").is_file()));
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().any(|v| v.path().join("bin/initdb").is_file()))
        .unwrap_or(false);
    if !(on_path || debian) {
        println!("skipped: no initdb");
    }
    on_path || debian
}
