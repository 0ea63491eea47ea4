//! SQLite's long-log cut under power loss: a `sqlite-wal-full` commit large enough that the store
//! cuts its WAL to zero bytes after it (a `TRUNCATE` checkpoint, `crates/kv/src/sqlite/
//! checkpoint.rs`), then a small commit that starts the log anew, on a real slowfs mount with its
//! op log. Every crash state at every sync call, under every crash model, must open and hold
//! every commit acknowledged before it. The crash lab's own workloads never commit enough to
//! reach the cut.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use common::Mounted;
use triebench_kv::sqlite::{SqliteMode, SqliteStore};
use triebench_kv::{ReadTx, Store, WriteTx};
use triebench_slowfs::model::oplog::read_log;
use triebench_slowfs::model::rng::SplitMix64;
use triebench_slowfs::model::{crash_points, CrashModel, Replay};

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
    let replay = Replay::new(&log);
    let points = crash_points(&log);
    assert!(points.len() >= 4, "too few sync calls logged: {points:?}");
    let mut rng = SplitMix64::new(0x5eed);
    let mut checked = 0;
    for &k in &points {
        let marks = log.marks_before(k);
        for model in CrashModel::ALL {
            let state = replay.sample(k, model, &mut rng);
            let dir = tempfile::tempdir().expect("state dir");
            state.materialise(dir.path()).expect("materialise");
            let at = format!("{model} at op {k} ({})", state.describe());
            let store = SqliteStore::open(&dir.path().join("store"), &["t"], SqliteMode::WalFull)
                .unwrap_or_else(|e| panic!("{at}: the crashed store does not open: {e}"));
            let t = store.table("t").expect("table");
            let r = store.reader().expect("reader");
            if marks.iter().any(|l| l == "large") {
                for i in [0, LARGE / 2, LARGE - 1] {
                    assert_eq!(
                        r.get(t, &key(i)).expect("get"),
                        Some(value(i)),
                        "{at}: an acknowledged large commit lost key {i}"
                    );
                }
                assert!(
                    r.count(t).expect("count") >= u64::from(LARGE),
                    "{at}: rows lost"
                );
            }
            if marks.iter().any(|l| l == "small") {
                assert_eq!(
                    r.get(t, b"small").expect("get"),
                    Some(b"after the cut".to_vec()),
                    "{at}: the acknowledged small commit was lost"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0);
}
