//! Each crash model finds a bug planted in a toy store, on a real slowfs mount: the toy writes
//! through the mount (with an op log), marks each commit it acknowledges, and the exploration
//! replays the log under the model and checks every state. The same toy with the bug fixed
//! passes under the same model, and the buggy one passes under a kinder model: the model is
//! what finds it.
//!
//! - clean: the commit marker is fsynced, the data never is.
//! - metadata: a commit's new file is fsynced, its directory never is.
//! - reordered: the marker is written before the data is synced (no barrier between them).
//! - torn: records carry no checksum, so a torn record is served as data.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;

use common::Mounted;
use triebench_slowfs::model::oplog::{read_log, LoadedLog};
use triebench_slowfs::model::{explore, CrashModel, Failure, PointPlan};

const COMMITS: u32 = 5;
const SAMPLES: u32 = 12;

/// Runs `toy` on a fresh mount with an op log, and returns the log. `None` without FUSE.
fn record(toy: impl FnOnce(&Path, &dyn Fn(u32))) -> Option<LoadedLog> {
    let logs = tempfile::tempdir().unwrap();
    let log_dir = logs.path().join("log");
    let m = Mounted::start(&["--power-loss", "--op-log", log_dir.to_str().unwrap()])?;
    let mnt = m.mnt().to_path_buf();
    let mark = |n: u32| m.control(&format!("mark {n}"));
    toy(&mnt, &mark);
    let _ = m.finish();
    Some(read_log(&log_dir).expect("the op log reads back"))
}

/// Violations of `check` over every crash point of `log` under `model`.
fn violations(
    log: &LoadedLog,
    model: CrashModel,
    check: impl FnMut(&Path, &[String]) -> Result<(), Failure>,
) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    explore(
        log,
        model,
        SAMPLES,
        11,
        PointPlan::default(),
        None,
        dir.path(),
        check,
        |_, _| {},
    )
    .unwrap()
    .violations
}

fn fail(kind: &str, detail: String) -> Failure {
    Failure {
        kind: kind.into(),
        detail,
    }
}

/// Creates `names` and fsyncs the directory, so only the toy's own bug matters.
fn create_synced(mnt: &Path, names: &[&str]) {
    for n in names {
        File::create(mnt.join(n)).expect("create");
    }
    File::open(mnt)
        .and_then(|d| d.sync_all())
        .expect("fsyncdir");
}

fn record_bytes(n: u32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&(n + 1).to_le_bytes());
    b[4..].copy_from_slice(&(n + 1).to_le_bytes());
    b
}

/// Marker-and-data toy: `marker` holds how many records `data` holds; acknowledged commits
/// must be counted by the marker and read back from the data.
fn marker_check(dir: &Path, marks: &[String]) -> Result<(), Failure> {
    let marker = fs::read(dir.join("marker")).unwrap_or_default();
    let count = marker
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let data = fs::read(dir.join("data")).unwrap_or_default();
    for i in 0..count {
        let at = i as usize * 8;
        if data.get(at..at + 8) != Some(&record_bytes(i)[..]) {
            return Err(fail(
                "corrupt",
                format!("the marker counts record {i}, the data lacks it"),
            ));
        }
    }
    for m in marks {
        let n: u32 = m.parse().unwrap();
        if n >= count {
            return Err(fail("lost", format!("commit {n}")));
        }
    }
    Ok(())
}

/// `fsync_data_first`: sync the data before writing the marker (correct) or after (the bug);
/// `sync_data`: sync the data at all.
fn marker_toy(sync_data_first: bool, sync_data: bool) -> impl FnOnce(&Path, &dyn Fn(u32)) {
    move |mnt, mark| {
        create_synced(mnt, &["data", "marker"]);
        let data = OpenOptions::new()
            .write(true)
            .open(mnt.join("data"))
            .unwrap();
        let marker = OpenOptions::new()
            .write(true)
            .open(mnt.join("marker"))
            .unwrap();
        for n in 0..COMMITS {
            data.write_all_at(&record_bytes(n), u64::from(n) * 8)
                .unwrap();
            if sync_data && sync_data_first {
                data.sync_data().unwrap();
            }
            marker.write_all_at(&(n + 1).to_le_bytes(), 0).unwrap();
            if sync_data && !sync_data_first {
                data.sync_data().unwrap();
            }
            marker.sync_data().unwrap();
            mark(n);
        }
    }
}

#[test]
fn clean_cut_finds_a_store_that_never_syncs_its_data() {
    let Some(buggy) = record(marker_toy(false, false)) else {
        return;
    };
    assert!(violations(&buggy, CrashModel::Clean, marker_check) > 0);
    let fixed = record(marker_toy(true, true)).unwrap();
    assert_eq!(violations(&fixed, CrashModel::Clean, marker_check), 0);
}

#[test]
fn reordered_writes_find_a_marker_written_before_its_data_is_synced() {
    let Some(buggy) = record(marker_toy(false, true)) else {
        return;
    };
    assert_eq!(
        violations(&buggy, CrashModel::Clean, marker_check),
        0,
        "a clean cut drops both unsynced writes together"
    );
    assert!(violations(&buggy, CrashModel::Reordered, marker_check) > 0);
    let fixed = record(marker_toy(true, true)).unwrap();
    assert_eq!(violations(&fixed, CrashModel::Reordered, marker_check), 0);
}

/// One file per commit: `c-N`, fsynced; the directory fsynced too unless `skip_dir_fsync`.
fn file_per_commit_toy(skip_dir_fsync: bool) -> impl FnOnce(&Path, &dyn Fn(u32)) {
    move |mnt, mark| {
        for n in 0..COMMITS {
            let f = File::create(mnt.join(format!("c-{n}"))).unwrap();
            f.write_all_at(&record_bytes(n), 0).unwrap();
            f.sync_all().unwrap();
            if !skip_dir_fsync {
                File::open(mnt).and_then(|d| d.sync_all()).unwrap();
            }
            mark(n);
        }
    }
}

fn file_per_commit_check(dir: &Path, marks: &[String]) -> Result<(), Failure> {
    for m in marks {
        let n: u32 = m.parse().unwrap();
        if fs::read(dir.join(format!("c-{n}"))).ok().as_deref() != Some(&record_bytes(n)[..]) {
            return Err(fail("lost", format!("commit {n}")));
        }
    }
    Ok(())
}

#[test]
fn metadata_model_finds_a_missing_directory_fsync() {
    let Some(buggy) = record(file_per_commit_toy(true)) else {
        return;
    };
    assert_eq!(
        violations(&buggy, CrashModel::Clean, file_per_commit_check),
        0,
        "the clean cut counts names as synced"
    );
    assert!(violations(&buggy, CrashModel::Metadata, file_per_commit_check) > 0);
    let fixed = record(file_per_commit_toy(false)).unwrap();
    assert_eq!(
        violations(&fixed, CrashModel::Metadata, file_per_commit_check),
        0
    );
}

/// A log of 2 KiB records `[n+1; 4][payload of n+1]`, appended and fsynced one per commit.
const RECORD: usize = 2048;

fn log_record(n: u32) -> Vec<u8> {
    let mut r = vec![(n + 1) as u8; RECORD];
    r[..4].copy_from_slice(&(n + 1).to_le_bytes());
    // The checksum the careful reader verifies: FNV-1a of the rest, in the last 4 bytes.
    let sum = fnv1a(&r[..RECORD - 4]);
    r[RECORD - 4..].copy_from_slice(&sum.to_le_bytes());
    r
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

fn log_toy(mnt: &Path, mark: &dyn Fn(u32)) {
    create_synced(mnt, &["log"]);
    let f = OpenOptions::new()
        .write(true)
        .open(mnt.join("log"))
        .unwrap();
    for n in 0..COMMITS {
        f.write_all_at(&log_record(n), u64::from(n) * RECORD as u64)
            .unwrap();
        f.sync_data().unwrap();
        mark(n);
    }
}

/// The toy's reader: records until a zero header; `verify` drops a record whose checksum
/// is wrong, and everything after it. What it serves must be what was written.
fn log_check(verify: bool) -> impl FnMut(&Path, &[String]) -> Result<(), Failure> {
    move |dir, marks| {
        let bytes = fs::read(dir.join("log")).unwrap_or_default();
        let mut served = 0u32;
        for chunk in bytes.chunks(RECORD) {
            let header = chunk
                .get(..4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            if header == 0 {
                break;
            }
            let intact = chunk.len() == RECORD
                && chunk[RECORD - 4..] == fnv1a(&chunk[..RECORD - 4]).to_le_bytes();
            if verify && !intact {
                break;
            }
            if chunk != &log_record(header - 1)[..] {
                return Err(fail("corrupt", format!("record {header} served torn")));
            }
            served += 1;
        }
        match marks
            .iter()
            .map(|m| m.parse::<u32>().unwrap())
            .find(|&n| n >= served)
        {
            Some(n) => Err(fail("lost", format!("commit {n}"))),
            None => Ok(()),
        }
    }
}

#[test]
fn torn_writes_find_records_without_a_checksum() {
    let Some(log) = record(log_toy) else {
        return;
    };
    assert_eq!(
        violations(&log, CrashModel::Reordered, log_check(false)),
        0,
        "whole writes never serve a torn record"
    );
    let torn = CrashModel::Torn { sector: 512 };
    assert!(violations(&log, torn, log_check(false)) > 0);
    assert_eq!(violations(&log, torn, log_check(true)), 0);
}
