//! Fault tests of the PostgreSQL backend: no PostgreSQL installed, the server killed mid-run,
//! an unreachable `POSTGRES_URL`, a statement the server refuses. Each fails with an error that
//! says why (no test bounds how long that takes: a hang is the test command's timeout to catch).
#![cfg(feature = "postgres-db")]

use triebench_kv::postgres::{PgOptions, PgServer, PgStore};
use triebench_kv::{KvError, ReadTx, Store, WriteTx};
use triebench_kv_conformance::TABLES;

#[test]
fn missing_postgres_names_the_package_and_postgres_url() {
    let empty = tempfile::tempdir().expect("temp dir");
    let dir = tempfile::tempdir().expect("temp dir");
    let err = PgServer::start_with_bin(dir.path(), Some(empty.path()))
        .expect_err("started without binaries");
    assert!(matches!(err, KvError::PostgresMissing), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("`postgresql`") && msg.contains("POSTGRES_URL"),
        "{msg}"
    );
}

#[test]
fn server_killed_mid_run_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let t = store.table("main").expect("t");
    let mut w = store.writer().expect("writer");
    w.put(t, b"k", b"v").expect("put");
    w.commit().expect("commit");
    let mut w = store.writer().expect("writer");
    w.put(t, b"k2", b"v").expect("put");
    let server = store.server().expect("managed");
    server.kill();
    // The error says the managed server exited and where its log is, not only that the client
    // lost its connection.
    let exited = format!("the managed server (pid {}) has exited", server.pid());
    let log = server.log_path().display().to_string();
    let err = w.commit().expect_err("commit after the server died");
    assert!(
        err.to_string().contains(&exited) && err.to_string().contains(&log),
        "{err}"
    );
    let err = store
        .reader()
        .expect("reader")
        .get(t, b"k")
        .expect_err("read after the server died");
    assert!(err.to_string().contains(&exited), "{err}");
}

#[test]
fn unreachable_url_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let nowhere = tempfile::tempdir().expect("temp dir");
    let err = PgStore::open(
        dir.path(),
        TABLES,
        PgOptions {
            url: Some(format!(
                "host={} user=triebench dbname=postgres",
                nowhere.path().display()
            )),
            asynchronous: false,
            ..PgOptions::default()
        },
    )
    .expect_err("connected to nothing");
    assert!(err.to_string().contains("cannot connect"), "{err}");
    let err = PgStore::open(
        dir.path(),
        TABLES,
        PgOptions {
            url: Some("postgres://triebench@127.0.0.1:1/postgres".into()),
            asynchronous: false,
            ..PgOptions::default()
        },
    )
    .expect_err("connected to a closed port");
    assert!(err.to_string().contains("POSTGRES_URL"), "{err}");
}

#[test]
fn cluster_lives_in_the_directory_under_test_and_stops_on_drop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let server = store.server().expect("managed");
    let pid = server.pid();
    assert!(dir.path().join("pgdata/PG_VERSION").is_file());
    assert!(dir.path().join("pgdata/pg_wal").is_dir());
    drop(store);
    // The postmaster is reaped: no process with its pid remains ours.
    // SAFETY: kill with signal 0 only probes.
    let alive = unsafe { libc::kill(pid as libc::pid_t, 0) } == 0;
    assert!(!alive, "postgres {pid} still runs after drop");
}

#[test]
fn a_server_error_is_quoted_not_just_called_a_db_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let t = store.table("main").expect("t");
    let r = store.reader().expect("reader");
    assert_eq!(r.get(t, b"k").expect("get"), None);
    // Another client drops the store's tables: the server refuses the next read with an error
    // of its own (42P01, undefined table) while the connection stays up.
    let url = store.server().expect("managed").url();
    let mut other = postgres::Client::connect(&url, postgres::NoTls).expect("second client");
    let schemas = other
        .query(
            "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' \
             AND nspname NOT IN ('public', 'information_schema')",
            &[],
        )
        .expect("list schemas");
    for row in schemas {
        let name: String = row.get(0);
        other
            .batch_execute(&format!("DROP SCHEMA \"{name}\" CASCADE"))
            .expect("drop schema");
    }
    let msg = r.get(t, b"k").expect_err("its table is gone").to_string();
    assert!(msg.contains("42P01") && !msg.contains("db error"), "{msg}");
}
