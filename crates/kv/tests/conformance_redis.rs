//! The conformance suite on the `redis` and `redis-aof` profiles, each case with its own managed
//! `redis-server`, plus stores sharing one server by URL (the `REDIS_URL` path).
#![cfg(feature = "redis-db")]

use std::path::Path;

use triebench_kv::redis::{RedisOptions, RedisServer, RedisStore};
use triebench_kv::{KvResult, ReadTx, Store, WriteTx};
use triebench_kv_conformance::{self as conformance, Capabilities, TABLES};

fn managed(dir: &Path, append_only: bool) -> KvResult<RedisStore> {
    RedisStore::open(
        dir,
        TABLES,
        RedisOptions {
            url: None,
            append_only,
            ..RedisOptions::default()
        },
    )
}

/// A managed server reached through the delay proxy (`--net-rtt`).
fn proxied(dir: &Path) -> KvResult<RedisStore> {
    let store = RedisStore::open(
        dir,
        TABLES,
        RedisOptions {
            net: Some(triebench_kv::net_hop::rtt_micros(200)),
            ..RedisOptions::default()
        },
    )?;
    assert_eq!(store.net().map(|n| n.rtt().as_micros()), Some(200));
    Ok(store)
}

/// `redis --net-rtt 200us`: every case through the delay proxy.
mod through_proxy {
    triebench_kv_conformance::conformance_tests!(
        triebench_kv_conformance::Capabilities {
            persistent: false,
            snapshot_reads: false,
            deferred_duplicate_check: true,
        },
        |dir: &std::path::Path| super::proxied(dir)
    );
}

/// `redis`: nothing survives the server.
mod plain {
    triebench_kv_conformance::conformance_tests!(
        triebench_kv_conformance::Capabilities {
            persistent: false,
            snapshot_reads: false,
            deferred_duplicate_check: true,
        },
        |dir: &std::path::Path| super::managed(dir, false)
    );

    #[test]
    fn reopening_starts_an_empty_server() {
        use triebench_kv::{ReadTx, Store, WriteTx};
        let dir = tempfile::tempdir().expect("temp dir");
        let first_pid = {
            let store = super::managed(dir.path(), false).expect("open");
            let t = store.table("main").expect("t");
            let mut w = store.writer().expect("writer");
            w.put(t, b"k", b"v").expect("put");
            w.commit().expect("commit");
            store.server().expect("managed").pid()
        };
        let store = super::managed(dir.path(), false).expect("reopen");
        assert_ne!(store.server().expect("managed").pid(), first_pid);
        assert!(!store.server().expect("managed").append_only());
        let t = store.table("main").expect("t");
        let r = store.reader().expect("reader");
        assert_eq!(
            r.count(t).expect("count"),
            0,
            "the volatile profile kept data"
        );
        assert!(!dir.path().join("appendonlydir").exists());
    }
}

/// `redis-aof`: reopening starts a new server that replays the AOF in the directory.
mod aof {
    triebench_kv_conformance::conformance_tests!(
        triebench_kv_conformance::Capabilities {
            persistent: true,
            snapshot_reads: false,
            deferred_duplicate_check: true,
        },
        |dir: &std::path::Path| super::managed(dir, true)
    );

    #[test]
    fn aof_lives_in_the_directory_under_test() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = super::managed(dir.path(), true).expect("open");
        let server = store.server().expect("managed server");
        assert!(server.append_only());
        assert_eq!(server.dir(), dir.path().canonicalize().expect("canonical"));
        assert!(server.is_running());
        drop(store);
        let aof_dir = dir.path().join("appendonlydir");
        assert!(
            aof_dir.is_dir(),
            "no AOF directory in {}",
            dir.path().display()
        );
        let first_pid = store_pid(dir.path());
        assert_ne!(first_pid, store_pid(dir.path()), "reopen reused a server");
    }

    fn store_pid(dir: &std::path::Path) -> u32 {
        let store = super::managed(dir, true).expect("open");
        store.server().expect("managed").pid()
    }
}

/// Two stores on one server given by URL: separate namespaces, and a reopened directory finds
/// its data. Several conformance cases run against the shared server too.
#[test]
fn stores_sharing_a_server_by_url() {
    let server_dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(server_dir.path(), false).expect("start redis-server");
    let by_url = |dir: &Path| {
        RedisStore::open(
            dir,
            TABLES,
            RedisOptions {
                url: Some(server.url().to_string()),
                append_only: false,
                ..RedisOptions::default()
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
        assert_ne!(a.key_prefix(), b.key_prefix());
        let (ta, tb) = (a.table("main").expect("t"), b.table("main").expect("t"));
        let mut w = a.writer().expect("writer a");
        w.insert(ta, b"k", b"from a").expect("insert");
        w.insert(ta, b"only a", b"1").expect("insert");
        w.commit().expect("commit a");
        // The same key in the other store is not a duplicate: namespaces are separate.
        let mut w = b.writer().expect("writer b");
        w.insert(tb, b"k", b"from b").expect("insert");
        w.commit().expect("commit b");
        let (ra, rb) = (a.reader().expect("reader"), b.reader().expect("reader"));
        assert_eq!(
            ra.get(ta, b"k").expect("get").as_deref(),
            Some(&b"from a"[..])
        );
        assert_eq!(
            rb.get(tb, b"k").expect("get").as_deref(),
            Some(&b"from b"[..])
        );
        assert_eq!(ra.count(ta).expect("count"), 2);
        assert_eq!(rb.count(tb).expect("count"), 1);
        assert_eq!(rb.get(tb, b"only a").expect("get"), None);
    }
    let again = by_url(dir_a.path()).expect("reopen a");
    let t = again.table("main").expect("t");
    let r = again.reader().expect("reader");
    assert_eq!(
        r.get(t, b"k").expect("get").as_deref(),
        Some(&b"from a"[..])
    );
    assert_eq!(r.count(t).expect("count"), 2);

    // The data lives in the shared server, so it persists across reopening a directory.
    let caps = Capabilities {
        persistent: true,
        snapshot_reads: false,
        deferred_duplicate_check: true,
    };
    type Case = fn(&dyn Fn() -> KvResult<RedisStore>, Capabilities);
    let cases: [(&str, Case); 6] = [
        ("round_trip", conformance::round_trip),
        ("duplicate_detection", conformance::duplicate_detection),
        (
            "reopen_keeps_committed",
            conformance::reopen_keeps_committed,
        ),
        (
            "empty_and_large_values",
            conformance::empty_and_large_values,
        ),
        (
            "counts_and_ordered_iteration",
            conformance::counts_and_ordered_iteration,
        ),
        ("readers_while_writing", conformance::readers_while_writing),
    ];
    for (name, case) in cases {
        let dir = tempfile::tempdir().expect("dir");
        eprintln!("shared server: {name}");
        case(&|| by_url(dir.path()), caps);
    }
}

/// `redis-aof` over a URL is refused unless the server really fsyncs every commit.
#[test]
fn aof_profile_by_url_requires_appendfsync_always() {
    let server_dir = tempfile::tempdir().expect("temp dir");
    let dir = tempfile::tempdir().expect("temp dir");
    let open = |url: &str| {
        RedisStore::open(
            dir.path(),
            TABLES,
            RedisOptions {
                url: Some(url.to_string()),
                append_only: true,
                ..RedisOptions::default()
            },
        )
    };
    let volatile = RedisServer::start(server_dir.path(), false).expect("start");
    let err = open(volatile.url()).expect_err("volatile server accepted for redis-aof");
    let msg = err.to_string();
    assert!(
        msg.contains("appendfsync=always") && msg.contains("REDIS_URL"),
        "{msg}"
    );
    drop(volatile);
    let durable = RedisServer::start(server_dir.path(), true).expect("start");
    open(durable.url()).expect("durable server refused");
}

/// Many entries and large values in one commit, and scans across page boundaries.
#[test]
fn large_commit_and_paged_scans() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = managed(dir.path(), false).expect("open");
    let t = store.table("main").expect("t");
    let mut w = store.writer().expect("writer");
    for i in 0u32..20_000 {
        w.insert(t, &i.to_be_bytes(), &i.to_le_bytes())
            .expect("insert");
    }
    // 12 values of 1 MiB: more than one 4 MiB page of bytes.
    let big = vec![7u8; 1 << 20];
    for i in 0u8..12 {
        w.put(t, &[0xff, i], &big).expect("put");
    }
    w.commit().expect("commit");
    let r = store.reader().expect("reader");
    assert_eq!(r.count(t).expect("count"), 20_012);
    let mut seen = 0u32;
    let mut big_seen = 0;
    r.scan(t, &triebench_kv::KeyRange::all(), |k, v| {
        if k.len() == 4 {
            assert_eq!(k, seen.to_be_bytes());
            assert_eq!(v, seen.to_le_bytes());
            seen += 1;
        } else {
            assert_eq!(v.len(), 1 << 20);
            big_seen += 1;
        }
        std::ops::ControlFlow::Continue(())
    })
    .expect("scan");
    assert_eq!((seen, big_seen), (20_000, 12));
    // The writer's merged scan over many committed keys and a few pending changes.
    let mut w = store.writer().expect("writer");
    w.delete(t, &5u32.to_be_bytes()).expect("delete");
    w.put(t, &[0x00, 0x00, 0x13, 0x88, 0x00], b"between")
        .expect("put");
    let range = triebench_kv::KeyRange::between(&0u32.to_be_bytes(), &10_000u32.to_be_bytes());
    let entries = w.collect(t, &range).expect("scan");
    assert_eq!(entries.len(), 10_000);
    assert!(entries.windows(2).all(|p| p[0].0 < p[1].0), "not in order");
    assert_eq!(w.count(t).expect("count"), 20_012);
    drop(w);
    assert_eq!(r.count(t).expect("count"), 20_012);
}

/// A commit of more puts and deletes than one variadic call of the commit script carries (256
/// keys) applies them all, in both the value hash and the key order; the second commit lists
/// more changed keys than twice the table holds, so it folds them into the order itself and the
/// list of pending keys is empty afterwards.
#[test]
fn commit_applies_puts_and_deletes_beyond_one_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = managed(dir.path(), false).expect("open");
    let t = store.table("main").expect("t");
    let mut w = store.writer().expect("writer");
    for i in 0..1000u32 {
        w.put(t, &i.to_be_bytes(), &i.to_le_bytes()).expect("put");
    }
    w.commit().expect("commit");
    let mut w = store.writer().expect("writer");
    for i in (0..1000u32).filter(|i| i % 3 != 0) {
        w.delete(t, &i.to_be_bytes()).expect("delete");
    }
    w.commit().expect("commit");
    let r = store.reader().expect("reader");
    let expected: Vec<(Vec<u8>, Vec<u8>)> = (0..1000u32)
        .filter(|i| i % 3 == 0)
        .map(|i| (i.to_be_bytes().to_vec(), i.to_le_bytes().to_vec()))
        .collect();
    assert_eq!(r.count(t).expect("count"), expected.len() as u64);
    let all = r.collect(t, &triebench_kv::KeyRange::all()).expect("scan");
    assert_eq!(all, expected);
    assert_eq!(r.get(t, &1u32.to_be_bytes()).expect("get"), None);
    // The store's own URL is redacted; the server's carries the password.
    let url = store.server().expect("a managed server").url();
    let mut con = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .expect("connect");
    let pending: u64 = redis::cmd("LLEN")
        .arg(format!("{}main:n", store.key_prefix()))
        .query(&mut con)
        .expect("LLEN");
    assert_eq!(
        pending, 0,
        "the commit should have folded its changes into the order"
    );
}

/// A clash found at commit names the table and key, and no table of the transaction changes.
#[test]
fn deferred_duplicate_names_table_and_key_and_applies_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = managed(dir.path(), false).expect("open");
    let main = store.table("main").expect("t");
    let log = store.table("change_log").expect("t");
    let mut w = store.writer().expect("writer");
    w.put(log, b"x", b"1").expect("put");
    w.put(main, b"c", b"committed").expect("put");
    w.commit().expect("commit");

    let mut w = store.writer().expect("writer");
    w.put(main, b"a", b"lost").expect("put");
    w.delete(main, b"c").expect("delete");
    w.insert(log, b"x", b"2").expect("deferred insert");
    match w.commit() {
        Err(triebench_kv::KvError::DuplicateEntry { table, key }) => {
            assert_eq!((table.as_str(), key.as_str()), ("change_log", "78"));
        }
        other => panic!("expected DuplicateEntry, got {other:?}"),
    }
    let r = store.reader().expect("reader");
    assert_eq!(r.get(main, b"a").expect("get"), None);
    assert_eq!(
        r.get(main, b"c").expect("get").as_deref(),
        Some(&b"committed"[..])
    );
    assert_eq!(r.get(log, b"x").expect("get").as_deref(), Some(&b"1"[..]));

    // An insert the eager backends would refuse stays refused even if the key is then deleted.
    let mut w = store.writer().expect("writer");
    w.insert(main, b"c", b"again").expect("deferred insert");
    w.delete(main, b"c").expect("delete");
    let outcome = w.commit();
    assert!(
        matches!(outcome, Err(triebench_kv::KvError::DuplicateEntry { .. })),
        "{outcome:?}"
    );
    assert!(r.contains(main, b"c").expect("get"));
}

/// A managed server is reached over its Unix socket in a private directory under `/tmp` (not
/// over TCP, and not in the directory under test), and the socket file goes with the server
/// (issue 34: the socket moved from `/tmp/triebench-redis-<port>.sock` into that directory).
#[test]
fn managed_server_answers_on_a_unix_socket_it_removes_on_drop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(dir.path(), false).expect("start");
    let socket = server.socket_path().display().to_string();
    assert!(socket.starts_with("/tmp/triebench-redis-"), "{socket}");
    assert!(
        server.url().contains(&format!("@localhost{socket}?pass=")),
        "the URL names the socket and carries the password"
    );
    let mut con = redis::Client::open(server.url())
        .expect("client")
        .get_connection()
        .expect("connect over the socket");
    let info: String = redis::cmd("INFO")
        .arg("server")
        .query(&mut con)
        .expect("INFO");
    assert!(
        info.contains(&format!("process_id:{}", server.pid())),
        "{info}"
    );
    assert!(Path::new(&socket).exists());
    drop(con);
    drop(server);
    assert!(!Path::new(&socket).exists(), "{socket} outlived its server");
}

/// Preconditions are checked by the commit script, atomically with the commit: another client
/// changing a required key between `require_*` and `commit` fails the commit.
#[test]
fn preconditions_are_checked_at_commit_against_other_clients() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = managed(dir.path(), false).expect("open");
    let url = store.server().expect("a managed server").url();
    let mut other = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .expect("connect");
    conformance::preconditions_against_another_client(&store, |table, key, value| {
        redis::cmd("HSET")
            .arg(format!("{}{table}:v", store.key_prefix()))
            .arg(key)
            .arg(value)
            .query::<i64>(&mut other)
            .expect("HSET");
    });
}
