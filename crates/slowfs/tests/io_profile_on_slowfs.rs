//! `triebench io-profile` on a real slowfs mount: what each backend asks of the filesystem per
//! commit matches what its durability promises (an fsync per commit where it promises power-loss
//! durability, none where everything stays in memory).
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use common::Mounted;
use triebench_kv::Profile;
use triebench_measure::io_profile_run::{collect, IoRow};

fn profile(name: &str) -> Profile {
    name.parse()
        .unwrap_or_else(|e| panic!("profile {name}: {e}"))
}

#[test]
fn durable_profiles_fsync_every_commit_and_btree_touches_nothing() {
    let Some(m) = Mounted::start(&["--profile", "none"]) else {
        return;
    };
    let profiles = ["btree", "lmdb", "sqlite-wal-full", "redis-aof"].map(profile);
    let file = collect(m.mnt(), &profiles, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.slowfs_profile, "none");
    let row = |p: &str, s: &str| -> &IoRow {
        file.row(p, s)
            .unwrap_or_else(|| panic!("no {p}/{s} row in {:?}", file.rows))
    };
    // Ten scenarios and the suite per profile; the suite is their sum.
    assert_eq!(file.rows.len(), 4 * 11);
    let update = row("lmdb", "update");
    assert_eq!(update.commits, 1001);
    let suite = row("lmdb", "suite");
    let summed: u64 = file
        .rows
        .iter()
        .filter(|r| r.profile == "lmdb" && r.scenario != "suite")
        .map(|r| r.counts.fsyncs)
        .sum();
    assert_eq!(suite.counts.fsyncs, summed);

    let btree = row("btree", "suite").counts;
    assert_eq!(
        btree.ops.write + btree.ops.sync + btree.ops.read,
        0,
        "{btree:?}"
    );
    for p in ["lmdb", "sqlite-wal-full", "redis-aof"] {
        let r = row(p, "update");
        assert!(
            r.counts.fsyncs >= r.commits,
            "{p}: {} fsyncs for {} commits",
            r.counts.fsyncs,
            r.commits
        );
        assert!(r.counts.bytes_written > 0, "{p}: {r:?}");
    }
    // LMDB syncs the data pages, then the meta page: two fsyncs per commit.
    assert!(update.counts.fsyncs >= 2 * update.commits, "{update:?}");
    let _ = m.finish();
}

/// PostgreSQL on slowfs (its managed server runs as `triebench-srv` under root, through the mount):
/// `postgres` flushes its WAL at every commit, `postgres-async` leaves that to its WAL writer.
#[test]
fn postgres_flushes_its_wal_per_commit_and_postgres_async_does_not() {
    let Some(m) = Mounted::start(&["--profile", "none"]) else {
        return;
    };
    let profiles = ["postgres", "postgres-async"].map(profile);
    let file = collect(m.mnt(), &profiles, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let update = |p: &str| {
        file.row(p, "update")
            .unwrap_or_else(|| panic!("no {p}/update row in {:?}", file.rows))
    };
    let durable = update("postgres");
    assert!(
        durable.counts.fsyncs >= durable.commits,
        "postgres: {} fsyncs for {} commits",
        durable.counts.fsyncs,
        durable.commits
    );
    let lazy = update("postgres-async");
    assert!(
        lazy.counts.fsyncs < lazy.commits / 2,
        "postgres-async: {} fsyncs for {} commits",
        lazy.counts.fsyncs,
        lazy.commits
    );
    assert!(lazy.counts.bytes_written > 0, "{lazy:?}");
    let _ = m.finish();
}
