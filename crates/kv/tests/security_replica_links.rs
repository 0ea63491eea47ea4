//! Issue 48, item 1: the replica's and the standby's directories under the store's directory
//! (`replica`, `standby`, `standby/pgdata`) are made and opened through a handle: a symbolic
//! link planted as one of them is refused and its target left untouched (no log appended, no
//! cluster made, nothing chowned), an existing directory this run did not make is never handed
//! to the server's user, and the replica keeps no `dump.rdb`.
#![cfg(all(target_os = "linux", feature = "redis-db", feature = "postgres-db"))]

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use triebench_kv::postgres::{PgOptions, PgStore, StandbyMode};
use triebench_kv::redis::{RedisOptions, RedisStore};
use triebench_kv::KvError;
use triebench_kv_conformance::TABLES;

/// What `dir` holds, by name (empty when it cannot be read).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn open_standby(dir: &Path) -> Result<PgStore, KvError> {
    PgStore::open_replicated(dir, TABLES, PgOptions::default(), StandbyMode::Sync, None)
}

#[test]
fn a_link_named_replica_is_refused_and_its_target_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join("replica")).unwrap();
    let err = RedisStore::open_replicated(tmp.path(), TABLES, RedisOptions::default(), None)
        .map(drop)
        .map_or_else(
            |e| e,
            |()| panic!("a store whose replica directory is a link must not open"),
        );
    assert!(
        matches!(err, KvError::Planted { .. }),
        "expected a planted-link error, got {err}"
    );
    assert!(err.to_string().contains("replica"), "{err}");
    assert_eq!(names(elsewhere.path()), Vec::<String>::new());
}

#[test]
fn a_link_named_standby_is_refused_and_its_target_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    // A cluster of someone else's already there: it must be neither used nor chowned.
    std::fs::create_dir(elsewhere.path().join("pgdata")).unwrap();
    let owner = std::fs::metadata(elsewhere.path().join("pgdata"))
        .unwrap()
        .uid();
    std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join("standby")).unwrap();
    let err = open_standby(tmp.path()).map(drop).map_or_else(
        |e| e,
        |()| panic!("a pair whose standby directory is a link must not open"),
    );
    assert!(
        matches!(err, KvError::Planted { .. }),
        "expected a planted-link error, got {err}"
    );
    assert!(err.to_string().contains("standby"), "{err}");
    assert_eq!(names(elsewhere.path()), vec!["pgdata".to_string()]);
    assert_eq!(
        names(&elsewhere.path().join("pgdata")),
        Vec::<String>::new()
    );
    assert_eq!(
        std::fs::metadata(elsewhere.path().join("pgdata"))
            .unwrap()
            .uid(),
        owner
    );
}

#[test]
fn a_link_named_pgdata_in_the_standby_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("standby")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join("standby/pgdata")).unwrap();
    let err = open_standby(tmp.path()).map(drop).map_or_else(
        |e| e,
        |()| panic!("a standby whose pgdata is a link must not open"),
    );
    assert!(err.to_string().contains("pgdata"), "{err}");
    assert_eq!(names(elsewhere.path()), Vec::<String>::new());
}

#[test]
fn an_existing_pgdata_this_run_did_not_make_is_not_chowned() {
    if !common::is_root() {
        common::skip_or_fail("only root hands directories to the server's user");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Root's own directory, made by someone else before the run (not by triebench).
    std::fs::create_dir_all(tmp.path().join("standby/pgdata")).unwrap();
    let err = open_standby(tmp.path()).map(drop).map_or_else(
        |e| e,
        |()| panic!("a root-owned pgdata that this run did not make must be refused"),
    );
    assert!(err.to_string().contains("pgdata"), "{err}");
    assert_eq!(
        std::fs::metadata(tmp.path().join("standby/pgdata"))
            .unwrap()
            .uid(),
        0,
        "root's pgdata was handed to the server's user"
    );
}

#[test]
fn the_replica_keeps_no_dump_rdb() {
    let tmp = tempfile::tempdir().unwrap();
    let store =
        RedisStore::open_replicated(tmp.path(), TABLES, RedisOptions::default(), None).unwrap();
    common::servers::put(&store, b"k", b"v").unwrap();
    let replica = store.replica_server().unwrap();
    for dir in [replica.private_dir(), replica.dir()] {
        let rdb: Vec<String> = names(dir)
            .into_iter()
            .filter(|n| n.ends_with(".rdb"))
            .collect();
        assert!(
            rdb.is_empty(),
            "the replica wrote {rdb:?} in {}",
            dir.display()
        );
    }
}
