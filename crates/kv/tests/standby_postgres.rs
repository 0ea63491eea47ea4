//! The replicated PostgreSQL pair (`postgres-sync-standby`, `postgres-remote-apply`,
//! `postgres-async-standby`): real primary and standby servers, the replication link through
//! the delay proxy, a failover onto the standby, and nothing left running afterwards.
#![cfg(feature = "postgres-db")]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::alive;
use common::servers::{assert_stopped, get, private_dirs, put};
use triebench_kv::net_hop::rtt_micros;
use triebench_kv::postgres::{PgOptions, PgStore, StandbyMode};
use triebench_kv_conformance::TABLES;

/// Reads `key` on the standby itself, as the cluster's store role, from the store's schema.
fn read_on_standby(store: &PgStore, key: &[u8]) -> Option<Vec<u8>> {
    let standby = store.standby_server().expect("a standby");
    let mut client = standby.config().connect(postgres::NoTls).unwrap();
    let row = client
        .query_opt("SELECT v FROM triebench.main WHERE k = $1", &[&key])
        .unwrap();
    row.map(|r| r.get::<_, Vec<u8>>(0))
}

fn open(dir: &Path, mode: StandbyMode, net: bool) -> PgStore {
    PgStore::open_replicated(
        dir,
        TABLES,
        PgOptions {
            net: net.then(|| rtt_micros(200)),
            ..PgOptions::default()
        },
        mode,
        net.then(|| rtt_micros(400)),
    )
    .unwrap()
}

// One test per process state: the counts of this process's private directories are not raced.
#[test]
fn pairs_replicate_fail_over_and_leave_nothing_running() {
    let tmp = tempfile::tempdir().unwrap();

    // remote_apply through the proxy: a commit is readable on the standby when it returns.
    let store = open(&tmp.path().join("apply"), StandbyMode::RemoteApply, true);
    assert_eq!(store.standby_mode(), Some(StandbyMode::RemoteApply));
    let (primary, standby) = (
        store.server().unwrap().pid(),
        store.standby_server().unwrap().pid(),
    );
    assert_ne!(primary, standby);
    // One proxy for the store, one for the replication link, each in a private directory.
    let nets = private_dirs("net");
    assert_eq!(nets.len(), 2, "{nets:?}");
    for d in &nets {
        let mode = std::fs::metadata(d).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", d.display());
    }
    for i in 0u8..5 {
        put(&store, &[b'k', i], &[i; 3]).unwrap();
        assert_eq!(read_on_standby(&store, &[b'k', i]), Some(vec![i; 3]));
    }
    // The replication password is in no server's command line, only in the standby's 0600
    // postgresql.auto.conf, and in neither server's log.
    for pid in [primary, standby] {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        assert!(!String::from_utf8_lossy(&cmdline).contains("password"));
    }
    let auto_conf = tmp.path().join("apply/standby/pgdata/postgresql.auto.conf");
    let mode = std::fs::metadata(&auto_conf).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let conf = std::fs::read_to_string(&auto_conf).unwrap();
    let secret = conf
        .split_whitespace()
        .find_map(|w| w.strip_prefix("password="))
        .expect("primary_conninfo carries the password");
    assert_eq!(secret.len(), 64, "a 32-byte random secret in hex");
    for log in ["apply/postgres.log", "apply/standby/postgres.log"] {
        let text = std::fs::read_to_string(tmp.path().join(log)).unwrap();
        assert!(!text.contains(secret), "{log} holds the password");
    }

    // Failover after a crash of the primary: what was acknowledged is on the promoted standby,
    // which takes new commits.
    store.kill_primary();
    assert!(!alive(primary));
    let promoted = store.fail_over().unwrap();
    assert_eq!(promoted.server().unwrap().pid(), standby);
    assert!(promoted.standby_server().is_none());
    for i in 0u8..5 {
        assert_eq!(get(&promoted, &[b'k', i]), Some(vec![i; 3]));
    }
    put(&promoted, b"after", b"failover").unwrap();
    assert_eq!(get(&promoted, b"after").as_deref(), Some(&b"failover"[..]));
    drop(promoted);
    assert!(!alive(standby));

    // A promoted standby is not started as a standby again.
    let err = PgStore::open_replicated(
        &tmp.path().join("apply"),
        TABLES,
        PgOptions::default(),
        StandbyMode::Sync,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("was promoted"), "{err}");

    // Synchronous and asynchronous pairs straight (no proxy), reopened: the standby resumes.
    for mode in [StandbyMode::Sync, StandbyMode::Async] {
        let dir = tmp.path().join(format!("{mode:?}"));
        let store = open(&dir, mode, false);
        put(&store, b"a", b"1").unwrap();
        drop(store);
        let store = open(&dir, mode, false);
        assert_eq!(get(&store, b"a").as_deref(), Some(&b"1"[..]));
        put(&store, b"b", b"2").unwrap();
        let pids = [
            store.server().unwrap().pid(),
            store.standby_server().unwrap().pid(),
        ];
        drop(store);
        assert_stopped(&pids, &[]);
    }

    // Nothing left: no server, no proxy, no socket directory.
    assert_stopped(&[], &["net", "pg"]);
}

#[test]
fn a_standby_profile_refuses_a_url_server() {
    let tmp = tempfile::tempdir().unwrap();
    let err = PgStore::open_replicated(
        tmp.path(),
        TABLES,
        PgOptions {
            url: Some("host=/nonexistent user=x dbname=postgres".into()),
            ..PgOptions::default()
        },
        StandbyMode::Sync,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("POSTGRES_URL"), "{err}");
}
