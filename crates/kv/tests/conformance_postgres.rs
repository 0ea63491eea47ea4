//! The conformance suite on the `postgres` and `postgres-async` profiles, each case with its own
//! managed PostgreSQL server in the case's directory, plus stores sharing one server by URL.
#![cfg(feature = "postgres-db")]

use std::path::Path;

use triebench_kv::conformance::{self, Capabilities, TABLES};
use triebench_kv::postgres::{PgOptions, PgServer, PgStore};
use triebench_kv::{KvResult, ReadTx, Store, WriteTx};

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
    triebench_kv::conformance_tests!(super::CAPS, |dir: &std::path::Path| super::proxied(dir));
}

/// `postgres`: synchronous_commit=on.
mod durable {
    triebench_kv::conformance_tests!(super::CAPS, |dir: &std::path::Path| super::managed(
        dir, false
    ));
}

/// `postgres-async`: synchronous_commit=off.
mod asynchronous {
    triebench_kv::conformance_tests!(super::CAPS, |dir: &std::path::Path| super::managed(
        dir, true
    ));
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

/// Preconditions are guards in the commit's one statement: another client that changes a
/// required key after `require_absent`/`require_value` and before `commit` makes the commit fail
/// with `PreconditionFailed` and write nothing, in that one request (the writer never read the
/// key: the round-trip count shows it).
#[test]
fn preconditions_are_checked_by_the_commit_statement() {
    use triebench_kv::KvError;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = managed(dir.path(), false).expect("open");
    let t = store.table("main").expect("t");
    let log = store.table("change_log").expect("t");
    let mut w = store.writer().expect("writer");
    w.put(log, b"entry", b"e1").expect("put");
    w.commit().expect("commit");
    let url = store.server().expect("managed").url();
    let mut other = postgres::Client::connect(&url, postgres::NoTls).expect("second client");
    let schema = store.schema().to_string();
    let mut upsert = |table: &str, key: &[u8], value: &[u8]| {
        other
            .execute(
                &format!(
                    "INSERT INTO \"{schema}\".\"{table}\" (k, v) VALUES ($1, $2) \
                     ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v"
                ),
                &[&key, &value],
            )
            .expect("upsert by another client");
    };

    // Held: one request, and the writes land.
    let before = store.round_trips();
    let mut w = store.writer().expect("writer");
    w.require_absent(t, b"node").expect("require");
    w.require_value(log, b"entry", b"e1").expect("require");
    w.put(t, b"node", b"n").expect("put");
    w.put(log, b"entry", b"e2").expect("put");
    w.commit().expect("preconditions hold");
    assert_eq!(
        store.round_trips() - before,
        2,
        "prepare the shape, then one commit"
    );
    let r = store.reader().expect("reader");
    assert_eq!(r.get(t, b"node").expect("get").as_deref(), Some(&b"n"[..]));
    assert_eq!(
        r.get(log, b"entry").expect("get").as_deref(),
        Some(&b"e2"[..])
    );

    for (required, table, key) in [
        ("absent", "main", &b"fresh"[..]),
        ("value", "change_log", &b"entry"[..]),
    ] {
        let mut w = store.writer().expect("writer");
        match required {
            "absent" => w.require_absent(t, b"fresh").expect("absent so far"),
            _ => w
                .require_value(log, b"entry", b"e2")
                .expect("holds e2 so far"),
        }
        w.put(t, b"written", b"w").expect("put");
        w.delete(t, b"node").expect("delete");
        upsert(table, key, b"changed meanwhile");
        let before = store.round_trips();
        match w.commit() {
            Err(KvError::PreconditionFailed { .. }) => {}
            other => panic!("expected PreconditionFailed ({required}), got {other:?}"),
        }
        assert!(
            store.round_trips() - before <= 2,
            "the check is the commit's request"
        );
        let r = store.reader().expect("reader");
        assert_eq!(r.get(t, b"written").expect("get"), None, "nothing applied");
        assert_eq!(r.get(t, b"node").expect("get").as_deref(), Some(&b"n"[..]));
    }
}
