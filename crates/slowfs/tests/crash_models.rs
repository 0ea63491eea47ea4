//! The op log and fault injection on a real mount of the slowfs binary: the log holds every
//! change and sync in order (marks included), an injected fsync `EIO` is logged and its data is
//! lost in every replayed state, and `ENOSPC` from the Nth write reaches the writer.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::fs::{self, File};
use std::os::unix::fs::FileExt;

use common::Mounted;
use triebench_slowfs::model::oplog::read_log;
use triebench_slowfs::model::replay::Node;
use triebench_slowfs::model::rng::SplitMix64;
use triebench_slowfs::model::{crash_points, CrashModel, LogOp, Replay};

#[test]
fn the_op_log_records_changes_syncs_and_marks_and_a_failed_fsync_loses_its_data() {
    let logdir = tempfile::tempdir().unwrap();
    let log_arg = logdir.path().join("log");
    let log_arg = log_arg.to_str().unwrap();
    let Some(m) = Mounted::start(&["--power-loss", "--op-log", log_arg, "--fail-fsync", "2"])
    else {
        return;
    };
    let f = File::create(m.mnt().join("a")).expect("create");
    f.write_all_at(b"first", 0).expect("write");
    f.sync_all().expect("the first fsync succeeds");
    m.control("mark one");
    f.write_all_at(b"second", 5).expect("write");
    let err = f.sync_all().expect_err("the second fsync fails");
    assert_eq!(err.raw_os_error(), Some(libc::EIO));
    f.sync_all()
        .expect("the third fsync succeeds (and covers nothing lost)");
    fs::create_dir(m.mnt().join("d")).expect("mkdir");
    fs::rename(m.mnt().join("a"), m.mnt().join("d/b")).expect("rename");
    File::open(m.mnt().join("d"))
        .and_then(|d| d.sync_all())
        .expect("fsyncdir");
    drop(f);
    let _ = m.finish();

    let log = read_log(&logdir.path().join("log")).expect("the log reads back");
    let kinds: Vec<String> = log
        .ops
        .iter()
        .map(|op| op.describe().split(' ').next().unwrap_or("").to_string())
        .collect();
    let want = [
        "create", "write", "fsync", "mark", "write", "fsync", "fsync", "mkdir", "rename",
        "fsyncdir",
    ];
    assert_eq!(kinds, want, "{:?}", log.ops);
    assert!(matches!(log.ops[5], LogOp::FsyncFailed { .. }));
    assert_eq!(log.marks_before(log.ops.len()), vec!["one".to_string()]);
    assert_eq!(crash_points(&log).len(), 5);
    let replay = Replay::new(&log);
    for model in CrashModel::ALL {
        let s = replay.sample(log.ops.len(), model, &mut SplitMix64::new(1));
        let Some(Node::File(bytes)) = s.nodes.get("d/b") else {
            panic!("{model}: the renamed file is there: {:?}", s.nodes.keys());
        };
        assert_eq!(
            &bytes[..],
            b"first",
            "{model}: the failed fsync's write is lost"
        );
    }
}

#[test]
fn enospc_from_the_nth_write() {
    let Some(m) = Mounted::start(&["--power-loss", "--enospc-write", "2+"]) else {
        return;
    };
    let f = File::create(m.mnt().join("a")).expect("create");
    f.write_all_at(b"x", 0).expect("the first write succeeds");
    for _ in 0..2 {
        let err = f.write_all_at(b"y", 1).expect_err("later writes fail");
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
    }
    drop(f);
    let _ = m.finish();
}
