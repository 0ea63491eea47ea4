//! Issue 48, item 5: run as root, the managed servers run as a dedicated account
//! (`triebench-srv`), not the shared `nobody`: a process running as `nobody` cannot read
//! Redis's `redis.conf` (its password) nor the standby's `postgresql.auto.conf` (the
//! replication password).
#![cfg(all(target_os = "linux", feature = "redis-db", feature = "postgres-db"))]

mod common;

use std::path::Path;
use std::process::Command;

use triebench_kv::postgres::{PgOptions, PgStore, StandbyMode};
use triebench_kv::redis::RedisServer;
use triebench_kv_conformance::TABLES;

/// Whether a process running as `nobody` can read `path` (`runuser`, which root has).
fn nobody_reads(path: &Path) -> bool {
    Command::new("runuser")
        .args(["-u", "nobody", "--", "cat"])
        .arg(path)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn nobody_uid() -> Option<u32> {
    let out = Command::new("id").args(["-u", "nobody"]).output().ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

#[test]
fn nobody_cannot_read_the_servers_secrets() {
    if !common::is_root() {
        common::skip_or_fail("only root runs the servers as another user");
        return;
    }
    let Some(nobody) = nobody_uid() else {
        common::skip_or_fail("there is no user `nobody`");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let redis = RedisServer::start(&tmp.path().join("redis"), false).unwrap();
    assert_ne!(redis.uid(), 0);
    assert_ne!(
        redis.uid(),
        nobody,
        "redis-server runs as the shared nobody"
    );
    let conf = redis.private_dir().join("redis.conf");
    assert!(conf.is_file(), "{}", conf.display());
    assert!(!nobody_reads(&conf), "nobody read {}", conf.display());

    let store = PgStore::open_replicated(
        &tmp.path().join("pg"),
        TABLES,
        PgOptions::default(),
        StandbyMode::Sync,
        None,
    )
    .unwrap();
    let standby = store.standby_server().unwrap();
    assert_ne!(standby.uid(), nobody, "postgres runs as the shared nobody");
    let auto = standby.data_dir().join("postgresql.auto.conf");
    assert!(
        std::fs::symlink_metadata(&auto).is_ok(),
        "{}",
        auto.display()
    );
    assert!(!nobody_reads(&auto), "nobody read {}", auto.display());
}
