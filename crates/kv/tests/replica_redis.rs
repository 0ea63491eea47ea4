//! `redis-replica-wait`: a real primary and replica, Redis's own replication through the
//! loopback delay proxy, `WAIT 1` after each commit; a commit the replica cannot acknowledge is
//! an error; nothing is left running afterwards.
#![cfg(feature = "redis-db")]

mod common;

use common::alive;
use common::servers::{assert_stopped, put};
use triebench_kv::net_hop::rtt_micros;
use triebench_kv::redis::{RedisOptions, RedisStore};
use triebench_kv::{ReadTx, Store};
use triebench_kv_conformance::TABLES;

#[test]
fn commits_wait_for_the_replica_and_fail_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let store = RedisStore::open_replicated(
        tmp.path(),
        TABLES,
        RedisOptions::default(),
        Some(rtt_micros(300)),
    )
    .unwrap();
    let replica = store.replica_server().unwrap();
    let (primary_pid, replica_pid) = (store.server().unwrap().pid(), replica.pid());
    put(&store, b"k", b"v").unwrap();
    let t = store.table("main").unwrap();
    assert_eq!(
        store.reader().unwrap().get(t, b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    // The replica holds what was committed: its dataset has the store's keys.
    let client = redis::Client::open(replica.url()).unwrap();
    let mut con = client.get_connection().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}*", store.key_prefix()))
        .query(&mut con)
        .unwrap();
    assert!(!keys.is_empty(), "the replica has none of the store's keys");
    // The password is on no command line.
    for pid in [primary_pid, replica_pid] {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        assert!(!String::from_utf8_lossy(&cmdline).contains("masterauth"));
    }
    // Without its link, the replica cannot acknowledge: the commit is an error, not silent.
    store.cut_replica_link();
    let err = put(&store, b"k2", b"v2").unwrap_err().to_string();
    assert!(err.contains("did not acknowledge"), "{err}");
    // Failover: the promoted replica has the acknowledged commit and takes new ones.
    store.kill_primary();
    assert!(!alive(primary_pid));
    let promoted = store.fail_over().unwrap();
    assert_eq!(promoted.server().unwrap().pid(), replica_pid);
    assert!(promoted.replica_server().is_none());
    let t = promoted.table("main").unwrap();
    assert_eq!(
        promoted.reader().unwrap().get(t, b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    put(&promoted, b"k3", b"v3").unwrap();
    drop(promoted);
    assert_stopped(&[primary_pid, replica_pid], &["redis"]);
}
