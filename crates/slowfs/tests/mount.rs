//! Real mounts of the slowfs binary: counters match what a test does, data passes through
//! byte for byte, and an injected sync delay shows in measured fsync latency.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::fs::{self, File};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::{open_uncached, Mounted};
use triebench_slowfs::StatsSnapshot;

fn op(s: &StatsSnapshot, name: &str) -> u64 {
    *s.ops
        .get(name)
        .unwrap_or_else(|| panic!("no op {name} in stats"))
}

#[test]
fn counters_match_the_operations_performed() {
    let Some(m) = Mounted::start(&["--profile", "none"]) else {
        return;
    };
    let data: Vec<u8> = (0..3 * 4096u32).map(|i| (i * 7 % 251) as u8).collect();
    let path = m.mnt().join("f.bin");

    let before = m.live_stats();
    assert_eq!(before.schema, 1);
    assert_eq!(before.profile, "none");
    {
        let mut f = File::create(&path).expect("create");
        for chunk in data.chunks(4096) {
            assert_eq!(f.write(chunk).expect("write"), 4096);
        }
        f.sync_all().expect("fsync");
    }
    let mut back = vec![0u8; 8192];
    open_uncached(&path).read_exact(&mut back).expect("read");
    assert_eq!(back, data[..8192]);
    assert_eq!(
        fs::read(m.backing().join("f.bin")).expect("backing file"),
        data,
        "backing file differs from what was written through the mount"
    );
    fs::rename(&path, m.mnt().join("g.bin")).expect("rename");
    assert!(m.backing().join("g.bin").is_file() && !m.backing().join("f.bin").exists());
    fs::remove_file(m.mnt().join("g.bin")).expect("unlink");
    assert!(!m.backing().join("g.bin").exists());
    let after = m.live_stats();

    let delta = |f: fn(&StatsSnapshot) -> u64| f(&after) - f(&before);
    assert_eq!(delta(|s| s.classes.write.ops), 3, "write requests");
    assert_eq!(delta(|s| s.classes.write.bytes), 12288, "write bytes");
    assert_eq!(delta(|s| op(s, "write")), 3);
    assert_eq!(delta(|s| s.fsyncs), 1, "fsyncs");
    // Three back-to-back writes to one new file are one run of data for the fsync to flush.
    assert_eq!(delta(|s| s.write_extents), 1, "write extents");
    assert_eq!(delta(|s| op(s, "fsync")), 1);
    assert_eq!(delta(|s| op(s, "create")), 1);
    assert_eq!(delta(|s| op(s, "rename")), 1);
    assert_eq!(delta(|s| op(s, "unlink")), 1);
    assert!(
        delta(|s| s.classes.read.ops) >= 1,
        "the uncached read reached slowfs"
    );
    assert!(delta(|s| s.classes.read.bytes) >= 8192);
    assert!(delta(|s| op(s, "flush")) >= 2, "two closes");
    assert!(delta(|s| s.classes.sync.ops) >= 3, "fsync and two flushes");
    assert!(
        delta(|s| s.classes.metadata.ops) >= 3,
        "create, rename, unlink"
    );
    let ops_total: u64 = after.ops.values().sum();
    let class_total = after.classes.metadata.ops
        + after.classes.read.ops
        + after.classes.write.ops
        + after.classes.sync.ops;
    assert_eq!(
        ops_total, class_total,
        "per-op counts add up to the classes"
    );

    let (last, stderr) = m.finish();
    assert!(stderr.contains("slowfs: mounted"), "{stderr}");
    for (l, a) in [
        (last.classes.metadata, after.classes.metadata),
        (last.classes.read, after.classes.read),
        (last.classes.write, after.classes.write),
        (last.classes.sync, after.classes.sync),
    ] {
        assert!(l.ops >= a.ops && l.bytes >= a.bytes, "{l:?} < {a:?}");
    }
    assert!(last.fsyncs >= after.fsyncs && last.uptime_s >= after.uptime_s);
    assert_eq!(last.delays_us, after.delays_us);
}

#[test]
fn injected_sync_delay_shows_in_fsync_latency() {
    let Some(m) = Mounted::start(&["--sync-us", "20000"]) else {
        return;
    };
    let stats = m.live_stats();
    assert_eq!(stats.delays_us.sync, 20000.0);
    assert_eq!(stats.delays_us.write, 0.0);
    assert_eq!(stats.profile, "none+custom");

    let mut f = File::create(m.mnt().join("log")).expect("create");
    for i in 0..5u8 {
        f.write_all(&[i; 100]).expect("write");
        let start = Instant::now();
        f.sync_data().expect("fdatasync");
        let took = start.elapsed();
        // A lower bound, the injected delay itself: a slower host only makes it longer.
        assert!(
            took >= Duration::from_millis(20),
            "fsync {i} took {took:?}, less than the injected 20 ms"
        );
    }
    drop(f);
    let after = m.live_stats();
    assert!(after.fsyncs >= 5, "{after:?}");
}
