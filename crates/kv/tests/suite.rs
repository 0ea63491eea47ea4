//! Every integration test of `triebench-kv`, in one test binary: each file under `tests/`
//! stays a module of its own, with its own `mod common;` (hence `duplicate_mod`), so a file
//! reads as it did when it was a binary of its own. One binary instead of one per file: each
//! of those linked every dependency again, most of the test command's build time.
//! `scripts/check-test-suites.py` fails when a file here is not named below.
#![allow(clippy::duplicate_mod)]

/// The name libtest runs test `name` of `module` (the caller's `module_path!()`) by: for a test
/// that runs another test of this binary in a child process (`--exact`).
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

#[path = "child_fds.rs"]
mod child_fds;
#[path = "conformance_any_store.rs"]
mod conformance_any_store;
#[path = "conformance_btree.rs"]
mod conformance_btree;
#[path = "conformance_lmdb.rs"]
mod conformance_lmdb;
#[path = "conformance_postgres.rs"]
mod conformance_postgres;
#[path = "conformance_redis.rs"]
mod conformance_redis;
#[path = "conformance_sqlite.rs"]
mod conformance_sqlite;
#[path = "disk_full.rs"]
mod disk_full;
#[path = "faults_lmdb.rs"]
mod faults_lmdb;
#[path = "faults_postgres.rs"]
mod faults_postgres;
#[path = "faults_redis.rs"]
mod faults_redis;
#[path = "faults_sqlite.rs"]
mod faults_sqlite;
#[path = "fresh_pairs.rs"]
mod fresh_pairs;
#[path = "fresh_stores.rs"]
mod fresh_stores;
#[path = "lmdb_corrupt.rs"]
mod lmdb_corrupt;
#[path = "lmdb_create_race.rs"]
mod lmdb_create_race;
#[path = "net_hop.rs"]
mod net_hop;
#[path = "redis_aof_tail.rs"]
mod redis_aof_tail;
#[path = "redis_orphan.rs"]
mod redis_orphan;
#[path = "replica_redis.rs"]
mod replica_redis;
#[path = "security_postgres.rs"]
mod security_postgres;
#[path = "security_redis.rs"]
mod security_redis;
#[path = "security_replica_links.rs"]
mod security_replica_links;
#[path = "security_replica_proxy.rs"]
mod security_replica_proxy;
#[path = "security_server_user.rs"]
mod security_server_user;
#[path = "security_store_dir.rs"]
mod security_store_dir;
#[path = "server_outlives_thread.rs"]
mod server_outlives_thread;
#[path = "space.rs"]
mod space;
#[path = "spec.rs"]
mod spec;
#[path = "sqlite_rows.rs"]
mod sqlite_rows;
#[path = "standby_postgres.rs"]
mod standby_postgres;
#[path = "standby_promote.rs"]
mod standby_promote;
