//! The delay proxy a managed server's fixture starts for `--net-rtt`: it listens in a private
//! 0700 directory of its own, the store works through it, and dropping the store stops the
//! proxy and removes its directory along with the server's. A URL server refuses a delay.
#![cfg(all(feature = "postgres-db", feature = "redis-db"))]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::servers::{get, private_dirs, put};
use triebench_kv::net_hop::rtt_micros;
use triebench_kv::postgres::{PgOptions, PgStore};
use triebench_kv::redis::{RedisOptions, RedisStore};
use triebench_kv::Store;
use triebench_kv_conformance::TABLES;

fn round_trip<S: Store>(store: &S) {
    put(store, b"k", b"v").unwrap();
    assert_eq!(get(store, b"k").as_deref(), Some(&b"v"[..]));
}

fn check_private_and_gone<S: Store>(store: S) {
    let dirs = private_dirs("net");
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let mode = std::fs::metadata(&dirs[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the proxy's directory is private");
    round_trip(&store);
    drop(store);
    assert!(
        private_dirs("net").is_empty(),
        "the proxy's directory goes with the store"
    );
}

// One test, so that the count of this process's proxy directories is not raced by another.
#[test]
fn proxied_servers_work_stay_private_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pg = PgStore::open(
        &dir.path().join("pg"),
        TABLES,
        PgOptions {
            net: Some(rtt_micros(0)),
            ..PgOptions::default()
        },
    )
    .unwrap();
    check_private_and_gone(pg);
    let redis = RedisStore::open(
        &dir.path().join("redis"),
        TABLES,
        RedisOptions {
            net: Some(rtt_micros(500)),
            ..RedisOptions::default()
        },
    )
    .unwrap();
    check_private_and_gone(redis);

    let err = PgStore::open(
        &dir.path().join("url"),
        TABLES,
        PgOptions {
            url: Some("host=/nonexistent user=x dbname=postgres".into()),
            net: Some(rtt_micros(500)),
            ..PgOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("managed server only"), "{err}");
}
