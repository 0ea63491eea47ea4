//! The conformance suite on the `postgres` and `postgres-async` profiles, each case with its own
//! managed PostgreSQL server in the case's directory, plus stores sharing one server by URL.
#![cfg(feature = "postgres-db")]

use std::path::Path;

use triebench_kv::postgres::{PgOptions, PgServer, PgStore};
use triebench_kv::{KvResult, ReadTx, Store, WriteTx};
use triebench_kv_conformance::{self as conformance, Capabilities, TABLES};

const CAPS: Capabilities = Capabilities {
    persistent: true,
    snapshot_reads: false,
    deferred_duplicate_check: false,
};

fn managed(dir: &Path, asynchronous: bool) -> KvResult<PgStore> {
    PgStore::open(
        dir,
        TABLES,
        PgOptions {
            url: None,
            asynchronous,
            ..PgOptions::default()
        },
    )
}

/// A managed server reached through the delay proxy (`--net-rtt`).
fn proxied(dir: &Path) -> KvResult<PgStore> {
    let store = PgStore::open(
        dir,
        TABLES,
        PgOptions {
            net: Some(triebench_kv::net_hop::rtt_micros(200)),
            ..PgOptions::default()
        },
    )?;
    assert_eq!(store.net().map(|n| n.rtt().as_micros()), Some(200));
    Ok(store)
}

/// `postgres --net-rtt 200us`: every case through the delay proxy.
mod through_proxy {
    triebench_kv_conformance::conformance_tests!(super::CAPS, |dir: &std::path::Path| {
        super::proxied(dir)
    });
}

/// `postgres`: synchronous_commit=on.
mod durable {
    triebench_kv_conformance::conformance_tests!(super::CAPS, |dir: &std::path::Path| {
        super::managed(dir, false)
    });
}

/// `postgres-async`: synchronous_commit=off.
mod asynchronous {
    triebench_kv_conformance::conformance_tests!(super::CAPS, |dir: &std::path::Path| {
        super::managed(dir, true)
    });
}

/// Stores sharing one server by URL live in separate schemas; a reopened directory finds its
/// data.
#[test]
fn stores_sharing_a_server_by_url() {
    let server_dir = tempfile::tempdir().expect("temp dir");
    let server = PgServer::start(server_dir.path()).expect("start postgres");
    let url = format!(
        "host={} user=triebench dbname=postgres",
        server.socket_dir().display()
    );
    let by_url = |dir: &Path| {
        PgStore::open(
            dir,
            TABLES,
            PgOptions {
                url: Some(url.clone()),
                asynchronous: false,
                ..PgOptions::default()
            },
        )
    };
    let (dir_a, dir_b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    {
        let a = by_url(dir_a.path()).expect("open a");
        let b = by_url(dir_b.path()).expect("open b");
        assert!(a.server().is_none() && b.server().is_none());
        assert_ne!(a.schema(), b.schema());
        let (ta, tb) = (a.table("main").expect("t"), b.table("main").expect("t"));
        let mut w = a.writer().expect("writer a");
        w.insert(ta, b"k", b"from a").expect("insert");
        w.commit().expect("commit a");
        let mut w = b.writer().expect("writer b");
        w.insert(tb, b"k", b"from b").expect("insert");
        w.commit().expect("commit b");
        assert_eq!(
            a.reader()
                .expect("r")
                .get(ta, b"k")
                .expect("get")
                .as_deref(),
            Some(&b"from a"[..])
        );
        assert_eq!(b.reader().expect("r").count(tb).expect("count"), 1);
    }
    let again = by_url(dir_a.path()).expect("reopen a");
    let t = again.table("main").expect("t");
    assert_eq!(
        again
            .reader()
            .expect("r")
            .get(t, b"k")
            .expect("get")
            .as_deref(),
        Some(&b"from a"[..])
    );
    type Case = fn(&dyn Fn() -> KvResult<PgStore>, Capabilities);
    let cases: [(&str, Case); 3] = [
        ("round_trip", conformance::round_trip),
        ("duplicate_detection", conformance::duplicate_detection),
        ("readers_while_writing", conformance::readers_while_writing),
    ];
    for (name, case) in cases {
        let dir = tempfile::tempdir().expect("dir");
        eprintln!("shared server: {name}");
        case(&|| by_url(dir.path()), CAPS);
    }
}

/// Preconditions are guards in the commit's one statement: a commit with preconditions is one
/// request, and another client changing a required key between `require_*` and `commit` fails
/// the commit, which writes nothing.
#[test]
fn preconditions_are_checked_by_the_commit_statement() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = managed(dir.path(), false).expect("open");
    let t = store.table("main").expect("t");
    let log = store.table("change_log").expect("t");
    for round in 0..2 {
        let before = store.round_trips();
        let mut w = store.writer().expect("writer");
        w.require_absent(t, &[round]).expect("require");
        w.put(t, &[round], b"n").expect("put");
        w.put(log, &[round], b"e").expect("put");
        w.commit().expect("preconditions hold");
        // The first round also prepares the statement for this shape of commit.
        let trips = store.round_trips() - before;
        assert_eq!(trips, 2 - u64::from(round), "round {round}");
    }

    let url = store.server().expect("managed").url();
    let mut other = postgres::Client::connect(&url, postgres::NoTls).expect("second client");
    let schema = store.schema().to_string();
    conformance::preconditions_against_another_client(&store, |table, key, value| {
        other
            .execute(
                &format!(
                    "INSERT INTO \"{schema}\".\"{table}\" (k, v) VALUES ($1, $2) \
                     ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v"
                ),
                &[&key, &value],
            )
            .expect("upsert by another client");
    });
}
