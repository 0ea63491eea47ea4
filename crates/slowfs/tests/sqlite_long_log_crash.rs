//! SQLite's long-log cut under power loss: a `sqlite-wal-full` commit large enough that the store
//! cuts its WAL to zero bytes after it (a `TRUNCATE` checkpoint, `crates/kv/src/sqlite/
//! checkpoint.rs`), then a small commit that starts the log anew, on a real slowfs mount with its
//! op log. Every crash state at every sync call, under every crash model, must open and hold
//! every commit acknowledged before it: the crash lab's own exploration (`model::explore`, as
//! `triebench crash-test` runs it) visits them. The crash lab's workloads never commit enough
//! to reach the cut.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::path::Path;

use common::Mounted;
use triebench_kv::sqlite::{SqliteMode, SqliteStore};
use triebench_kv::{ReadTx, Store, WriteTx};
use triebench_slowfs::model::oplog::read_log;
use triebench_slowfs::model::{crash_points, explore, CrashModel, Failure, PointPlan};

/// Puts in the large commit: ~4,600 pages of 3,000-byte values, past the 4,000 frames that
/// flag a commit for the cut.
const LARGE: u32 = 4_500;

fn key(i: u32) -> Vec<u8> {
    format!("large-{i:05}").into_bytes()
}

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 3000]
}

#[test]
fn a_commit_that_cuts_the_long_log_loses_nothing_acknowledged() {
    let logdir = tempfile::tempdir().expect("temp dir");
    let log_path = logdir.path().join("log");
    let log_arg = log_path.to_str().expect("utf-8 temp path");
    let Some(m) = Mounted::start(&["--power-loss", "--op-log", log_arg]) else {
        return;
    };
    let store_dir = m.mnt().join("store");
    {
        let store =
            SqliteStore::open(&store_dir, &["t"], SqliteMode::WalFull).expect("open on slowfs");
        let t = store.table("t").expect("table");
        let mut w = store.writer().expect("writer");
        for i in 0..LARGE {
            w.put(t, &key(i), &value(i)).expect("put");
        }
        w.commit().expect("large commit");
        let wal = store_dir.join("triebench.sqlite3-wal");
        let wal_len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        assert_eq!(wal_len, 0, "the large commit did not cut its log");
        m.control("mark large");
        let mut w = store.writer().expect("writer");
        w.put(t, b"small", b"after the cut").expect("put");
        w.commit().expect("small commit");
        m.control("mark small");
    }
    let _ = m.finish();

    let log = read_log(&log_path).expect("the op log reads back");
    let points = crash_points(&log);
    assert!(points.len() >= 4, "too few sync calls logged: {points:?}");
    let state_dir = tempfile::tempdir().expect("state dir");
    let check = |dir: &Path, marks: &[String]| check_state(&dir.join("store"), marks);
    for model in CrashModel::ALL {
        let seen = explore(
            &log,
            model,
            1,
            0x5eed,
            PointPlan::default(),
            None,
            state_dir.path(),
            check,
            |_, _| {},
        )
        .expect("every crash state written");
        assert!(seen.states > 0);
        assert_eq!(seen.violations, 0, "{model}: {:#?}", seen.smallest);
    }
}

/// One crash state's store opens and holds every commit acknowledged (marked) before its
/// crash point.
fn check_state(store_dir: &Path, marks: &[String]) -> Result<(), Failure> {
    let fail = |kind: &str, detail: String| Failure {
        kind: kind.into(),
        detail,
    };
    let store = SqliteStore::open(store_dir, &["t"], SqliteMode::WalFull).map_err(|e| {
        fail(
            "unopenable",
            format!("the crashed store does not open: {e}"),
        )
    })?;
    let t = store.table("t").expect("table");
    let r = store.reader().expect("reader");
    if marks.iter().any(|l| l == "large") {
        for i in [0, LARGE / 2, LARGE - 1] {
            if r.get(t, &key(i)).expect("get") != Some(value(i)) {
                return Err(fail(
                    "lost",
                    format!("an acknowledged large commit lost key {i}"),
                ));
            }
        }
        if r.count(t).expect("count") < u64::from(LARGE) {
            return Err(fail("lost", "rows lost".into()));
        }
    }
    if marks.iter().any(|l| l == "small")
        && r.get(t, b"small").expect("get") != Some(b"after the cut".to_vec())
    {
        return Err(fail(
            "lost",
            "the acknowledged small commit was lost".into(),
        ));
    }
    Ok(())
}
