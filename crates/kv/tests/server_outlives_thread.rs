//! A managed server belongs to the process, not to the thread that opened its store: a store
//! opened on a short-lived thread (a worker, a request handler) keeps working after that thread
//! has exited. Linux sends a server's death signal when the thread that forked it exits, which
//! killed such a server until servers were forked from a launcher thread that never exits.
#![cfg(any(feature = "redis-db", feature = "postgres-db"))]

use triebench_kv::{AnyStore, BackendSpec, ReadTx, Store, WriteTx};

const TABLES: &[&str] = &["t"];

/// Opens `profile` on a thread that then exits, waits a moment for a death signal to act, and
/// writes and reads through the store from this thread.
fn opened_on_a_finished_thread(profile: &'static str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let store: AnyStore = std::thread::spawn(move || {
        BackendSpec::parse(profile, Some(path))
            .and_then(|spec| spec.open_any(TABLES))
            .unwrap_or_else(|e| panic!("open {profile}: {e}"))
    })
    .join()
    .unwrap();
    // The signal is sent as the thread exits, before join returns; give the server time to act
    // on it (SIGKILL for redis-server, a fast shutdown for PostgreSQL).
    std::thread::sleep(std::time::Duration::from_millis(500));
    let table = store.table("t").unwrap();
    let mut w = store
        .writer()
        .unwrap_or_else(|e| panic!("{profile}: writer: {e}"));
    w.put(table, b"k", b"v").unwrap();
    w.commit()
        .unwrap_or_else(|e| panic!("{profile}: commit: {e}"));
    let r = store.reader().unwrap();
    assert_eq!(
        r.get(table, b"k").unwrap(),
        Some(b"v".to_vec()),
        "{profile}"
    );
}

#[cfg(feature = "redis-db")]
#[test]
fn redis_server_outlives_the_thread_that_started_it() {
    opened_on_a_finished_thread("redis");
}

#[cfg(feature = "postgres-db")]
#[test]
fn postgres_server_outlives_the_thread_that_started_it() {
    opened_on_a_finished_thread("postgres");
}
