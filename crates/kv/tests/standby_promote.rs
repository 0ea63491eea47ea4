//! A failover onto a standby whose replay is behind what it received: the promotion must not
//! wait on itself (issue 46: "cannot promote the standby: not promoted within 60 s", 2
//! failovers in 14 runs of the asynchronous standby's test on a loaded machine).
//!
//! A query on a hot standby holds a snapshot while it runs. The primary's pruning records
//! (each names the newest transaction whose row versions it removes) conflict with a snapshot
//! taken before replay reached them, and the pair's standby replays streamed WAL with
//! `max_standby_streaming_delay = -1`: replay waits for such a query to end. The promotion was
//! such a query, `pg_promote(true, 60)`, waiting inside itself for replay to end; both waited
//! until it gave up after 60 s. Here a transaction held open on the standby stops replay while
//! the primary writes (on a loaded machine, replay merely lags), so the backlog that conflicts
//! with the promotion's own snapshot is certain, not a race; it ends once the promotion is
//! requested.
#![cfg(feature = "postgres-db")]

mod common;

use std::time::{Duration, Instant};

use common::servers::{get, put};
use triebench_kv::postgres::{PgOptions, PgServer, PgStore, StandbyMode, STANDBY_DIR};
use triebench_kv_conformance::TABLES;

/// The cluster's bootstrap superuser (peer authentication, this OS user).
const SUPERUSER: &str = "triebench";
/// Commits on the primary while replay stands still.
const COMMITS: u32 = 3000;

fn superuser(server: &PgServer) -> postgres::Client {
    let mut config = server.config();
    config.user(SUPERUSER);
    config.connect(postgres::NoTls).unwrap()
}

fn lsn(client: &mut postgres::Client, sql: &str) -> String {
    client.query_one(sql, &[]).unwrap().get(0)
}

#[test]
fn a_standby_behind_on_replay_is_promoted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pair");
    let store =
        PgStore::open_replicated(&dir, TABLES, PgOptions::default(), StandbyMode::Async, None)
            .unwrap();
    // Replay stands still while a snapshot is taken on the standby and the primary writes.
    let mut standby = superuser(store.standby_server().unwrap());
    standby
        .execute("SELECT pg_wal_replay_pause()", &[])
        .unwrap();
    let mut holder = superuser(store.standby_server().unwrap());
    holder
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM pg_class")
        .unwrap();
    // The same few rows updated again and again: the primary prunes their old versions.
    for i in 0..COMMITS {
        put(&store, &[b'k', (i % 8) as u8], &i.to_be_bytes()).unwrap();
    }
    let mut primary = superuser(store.server().unwrap());
    let end = lsn(&mut primary, "SELECT pg_current_wal_lsn()::text");
    let received = |standby: &mut postgres::Client| {
        standby
            .query_one(
                "SELECT pg_last_wal_receive_lsn() >= $1::text::pg_lsn, \
                        pg_last_wal_replay_lsn() < $1::text::pg_lsn",
                &[&end],
            )
            .map(|row| (row.get::<_, bool>(0), row.get::<_, bool>(1)))
            .unwrap()
    };
    let started = Instant::now();
    let behind = loop {
        let (all_received, behind) = received(&mut standby);
        if all_received || started.elapsed() > Duration::from_secs(60) {
            break behind;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(behind, "replay went on although it was paused");
    // Resumed while the link is up, replay takes in all that was received as streamed WAL
    // and stops at the first record that conflicts with the snapshot held.
    standby
        .execute("SELECT pg_wal_replay_resume()", &[])
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let (_, behind) = received(&mut standby);
    // Everything was received and not all of it replayed: the case this test is about.
    assert!(behind, "replay caught up although a snapshot held it");
    drop((primary, standby));
    store.kill_primary();
    let promote_file = dir.join(STANDBY_DIR).join("pgdata/promote");
    std::thread::scope(|s| {
        let failover = s.spawn(move || store.fail_over());
        // Replay goes on once the promotion was asked for (and, before the fix, its query's
        // snapshot taken).
        while !promote_file.exists() && !failover.is_finished() {
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(200));
        holder.batch_execute("COMMIT").unwrap();
        let promoted = failover.join().unwrap().unwrap();
        for k in 0..8u32 {
            let last = (0..COMMITS).rev().find(|i| i % 8 == k).unwrap();
            assert_eq!(
                get(&promoted, &[b'k', k as u8]),
                Some(last.to_be_bytes().to_vec()),
                "key {k}"
            );
        }
    });
}
