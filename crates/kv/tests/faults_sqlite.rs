//! Environment faults on the SQLite backend: bad directories, corrupt and truncated files,
//! unusable table declarations. Each must be a typed error, never a panic.

#![cfg(feature = "sqlite-db")]

use std::path::Path;

use triebench_kv::sqlite::{SqliteMode, SqliteStore, DB_FILE};
use triebench_kv::{KvError, KvResult, ReadTx, Store, WriteTx};
use triebench_kv_conformance::TABLES;

const MODES: [SqliteMode; 5] = [
    SqliteMode::Wal,
    SqliteMode::WalFull,
    SqliteMode::Rollback,
    SqliteMode::WalMmap,
    SqliteMode::WalFullMmap,
];

fn open(dir: &Path, mode: SqliteMode) -> KvResult<SqliteStore> {
    SqliteStore::open(dir, TABLES, mode)
}

/// Asserts `result` is `KvError::Io` naming `path`.
fn assert_io(result: KvResult<SqliteStore>, path: &Path) {
    match result {
        Err(KvError::Io { path: p, .. }) => assert_eq!(p, path),
        Err(other) => panic!("expected KvError::Io for {}, got {other:?}", path.display()),
        Ok(_) => panic!("open succeeded at {}", path.display()),
    }
}

#[test]
fn missing_parent_directories_are_created() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("a").join("b").join("c");
        let store = open(&dir, mode).expect("open in a directory that does not exist yet");
        assert_eq!(store.path(), dir.join(DB_FILE));
        let t = store.table("main").expect("main");
        let mut w = store.writer().expect("writer");
        w.put(t, b"k", b"v").expect("put");
        w.commit().expect("commit");
        assert!(dir.join(DB_FILE).is_file(), "database file not created");
        drop(store);
        let store = open(&dir, mode).expect("reopen");
        let r = store.reader().expect("reader");
        assert_eq!(r.get(t, b"k").expect("get").as_deref(), Some(&b"v"[..]));
    }
}

#[test]
fn directory_that_is_a_regular_file_is_an_io_error() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let file = tmp.path().join("plain-file");
    std::fs::write(&file, b"not a directory").expect("write file");
    for mode in MODES {
        assert_io(open(&file, mode), &file);
        // A regular file as a parent of the directory.
        let below = file.join("sub");
        assert_io(open(&below, mode), &below);
    }
    assert_eq!(
        std::fs::read(&file).expect("read file"),
        b"not a directory",
        "the file was modified"
    );
}

#[test]
fn uncreatable_directory_is_an_io_error() {
    // Root ignores permission bits, but nobody can create directories in /proc.
    let dir = Path::new("/proc/triebench-sqlite-fault");
    for mode in MODES {
        assert_io(open(dir, mode), dir);
    }
}

#[test]
fn database_path_that_is_a_directory_is_an_io_error() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let db = tmp.path().join(DB_FILE);
    std::fs::create_dir(&db).expect("mkdir");
    for mode in MODES {
        assert_io(open(tmp.path(), mode), &db);
    }
}

#[test]
fn garbage_file_is_reported_corrupt() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = tmp.path().join(DB_FILE);
        std::fs::write(&db, vec![0xAB; 8192]).expect("write garbage");
        match open(tmp.path(), mode) {
            Err(KvError::Corrupt { backend, path, .. }) => {
                assert_eq!(backend, "sqlite");
                assert_eq!(path, db);
            }
            Err(other) => panic!("{mode:?}: expected KvError::Corrupt, got {other:?}"),
            Ok(_) => panic!("{mode:?}: opened a garbage file"),
        }
    }
}

/// Opens, reads every table and counts: the first error, if any.
fn open_and_read_all(dir: &Path, mode: SqliteMode) -> KvResult<()> {
    let store = open(dir, mode)?;
    let r = store.reader()?;
    for name in TABLES {
        let t = store.table(name)?;
        r.count(t)?;
        r.collect(t, &triebench_kv::KeyRange::all())?;
        r.get(t, b"key-00500")?;
    }
    Ok(())
}

#[test]
fn truncated_database_is_an_error() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("temp dir");
        {
            let store = open(tmp.path(), mode).expect("open");
            for name in TABLES {
                let t = store.table(name).expect("table");
                let mut w = store.writer().expect("writer");
                for i in 0..1000u32 {
                    let key = format!("key-{i:05}");
                    w.put(t, key.as_bytes(), &[i as u8; 200]).expect("put");
                }
                w.commit().expect("commit");
            }
        }
        // Closing the last connection checkpoints the WAL into the main file.
        let db = tmp.path().join(DB_FILE);
        let len = std::fs::metadata(&db).expect("metadata").len();
        assert!(len > 100_000, "database unexpectedly small: {len} bytes");
        open_and_read_all(tmp.path(), mode).expect("intact database reads back");

        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&db)
            .expect("open db file");
        file.set_len(1000).expect("truncate");
        drop(file);
        match open_and_read_all(tmp.path(), mode) {
            Err(KvError::Corrupt { .. } | KvError::Backend { .. }) => {}
            Err(other) => panic!("{mode:?}: expected Corrupt or Backend, got {other:?}"),
            Ok(()) => panic!("{mode:?}: a truncated database read back without error"),
        }
    }
}

#[test]
fn table_names_are_checked() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let store = open(tmp.path(), SqliteMode::Wal).expect("open");
    match store.table("nope") {
        Err(KvError::UnknownTable { name, known }) => {
            assert_eq!(name, "nope");
            assert_eq!(known, TABLES.join(", "));
        }
        other => panic!("expected UnknownTable, got {other:?}"),
    }
    drop(store);
    let bad: [&[&str]; 4] = [&["main", "Main"], &["sqlite_master"], &["a\"b"], &[]];
    for tables in bad {
        match SqliteStore::open(tmp.path(), tables, SqliteMode::Wal) {
            Err(KvError::InvalidTables(_)) => {}
            other => panic!("{tables:?}: expected InvalidTables, got {other:?}"),
        }
    }
    // Tables added on a later open are created; earlier data stays.
    let store = SqliteStore::open(tmp.path(), &["main", "extra-table"], SqliteMode::Wal)
        .expect("open with a new table");
    let extra = store.table("extra-table").expect("extra");
    let mut w = store.writer().expect("writer");
    w.insert(extra, b"k", b"v").expect("insert");
    w.commit().expect("commit");
    assert_eq!(
        store.reader().expect("reader").count(extra).expect("count"),
        1
    );
}

#[test]
fn rollback_mode_reader_does_not_block_a_commit_on_the_same_thread() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let store = open(tmp.path(), SqliteMode::Rollback).expect("open");
    let t = store.table("main").expect("main");
    let r = store.reader().expect("reader");
    assert_eq!(r.get(t, b"k").expect("get"), None);
    let mut w = store.writer().expect("writer");
    w.put(t, b"k", b"v").expect("put");
    w.commit().expect("commit while a reader is open");
    assert_eq!(r.get(t, b"k").expect("get").as_deref(), Some(&b"v"[..]));
}
