//! Bad input and faults on the LMDB profiles: each must be a clear error, never a panic.
#![cfg(feature = "lmdb")]

use std::path::Path;

use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::{KvError, ReadTx, Store, WriteTx};
use triebench_kv_conformance::TABLES;

fn open(dir: &Path, transact_flags: bool, map_size: usize) -> Result<LmdbStore, KvError> {
    LmdbStore::open(
        dir,
        TABLES,
        LmdbOptions {
            map_size,
            transact_flags,
        },
    )
}

#[test]
fn missing_directory_is_created() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("a/b/c");
    let store = open(&dir, false, 1 << 24).unwrap();
    let t = store.table("main").unwrap();
    let mut w = store.writer().unwrap();
    w.put(t, b"k", b"v").unwrap();
    w.commit().unwrap();
    assert!(dir.join("lmdb/data.mdb").exists());
}

#[test]
fn directory_that_cannot_exist_is_an_io_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("plain-file");
    std::fs::write(&file, b"not a directory").unwrap();
    for transact in [false, true] {
        let err = open(&file.join("sub"), transact, 1 << 24).unwrap_err();
        assert!(matches!(err, KvError::Io { .. }), "{err:?}");
        assert!(err.to_string().contains("plain-file/sub"), "{err}");
    }
    // Root ignores permission bits, so use a filesystem that refuses writes to everyone.
    let err = open(Path::new("/proc/triebench-cannot-write"), false, 1 << 24).unwrap_err();
    assert!(matches!(err, KvError::Io { .. }), "{err:?}");
}

#[test]
fn map_full_is_an_error_that_says_how_to_enlarge_and_rolls_back() {
    let tmp = tempfile::tempdir().unwrap();
    for transact in [false, true] {
        let dir = tmp.path().join(format!("full-{transact}"));
        let store = open(&dir, transact, 1 << 20).unwrap();
        let t = store.table("main").unwrap();
        let mut w = store.writer().unwrap();
        w.put(t, b"kept", b"small").unwrap();
        w.commit().unwrap();

        let value = vec![7u8; 64 * 1024];
        let mut w = store.writer().unwrap();
        let mut failure = None;
        for i in 0u32..64 {
            if let Err(e) = w.put(t, &i.to_be_bytes(), &value) {
                failure = Some(e);
                break;
            }
        }
        let err = match failure {
            Some(e) => {
                drop(w);
                e
            }
            None => w.commit().unwrap_err(),
        };
        assert!(
            matches!(
                err,
                KvError::MapFull {
                    map_size: 1_048_576
                }
            ),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("larger map size") && msg.contains("TRIEBENCH_LMDB_MAP_SIZE"),
            "{msg}"
        );

        // Nothing of the failed transaction landed; the store still works.
        let r = store.reader().unwrap();
        assert_eq!(r.count(t).unwrap(), 1);
        assert_eq!(r.get(t, b"kept").unwrap().as_deref(), Some(&b"small"[..]));
        drop(r);
        let mut w = store.writer().unwrap();
        w.put(t, b"after", b"ok").unwrap();
        w.commit().unwrap();
    }
}

#[test]
fn garbage_file_is_reported_corrupt() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("lmdb");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("data.mdb"), vec![0xABu8; 16 * 1024]).unwrap();
    let err = open(tmp.path(), false, 1 << 24).unwrap_err();
    assert!(matches!(err, KvError::Corrupt { .. }), "{err:?}");

    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("triebench.lmdb"), vec![0x11u8; 16 * 1024]).unwrap();
    let err = open(tmp.path(), true, 1 << 24).unwrap_err();
    assert!(matches!(err, KvError::Corrupt { .. }), "{err:?}");
}

#[test]
fn truncated_file_is_reported_corrupt_not_sigbus() {
    for transact in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        {
            let store = open(tmp.path(), transact, 1 << 26).unwrap();
            let t = store.table("main").unwrap();
            let mut w = store.writer().unwrap();
            for i in 0u32..2000 {
                w.put(t, &i.to_be_bytes(), &[9u8; 500]).unwrap();
            }
            w.commit().unwrap();
        }
        let data = if transact {
            tmp.path().join("triebench.lmdb")
        } else {
            tmp.path().join("lmdb/data.mdb")
        };
        let file = std::fs::OpenOptions::new().write(true).open(&data).unwrap();
        file.set_len(3 * 4096).unwrap();
        drop(file);
        let err = open(tmp.path(), transact, 1 << 26).unwrap_err();
        assert!(matches!(err, KvError::Corrupt { .. }), "{err:?}");
        assert!(err.to_string().contains("truncated"), "{err}");
    }
}

/// A process spawned while a store is open does not inherit its files: LMDB leaves the data
/// file's descriptor inheritable, and a child holding it kept the filesystem under test busy.
#[cfg(target_os = "linux")]
#[test]
fn a_child_process_does_not_inherit_the_store_files() {
    for (transact_flags, data_file) in [(false, "data.mdb"), (true, "triebench.lmdb")] {
        let tmp = tempfile::tempdir().unwrap();
        let store = open(tmp.path(), transact_flags, 1 << 24).unwrap();
        // The shell lists the descriptors it was started with.
        let out = std::process::Command::new("sh")
            .args(["-c", "ls -l /proc/$$/fd"])
            .output()
            .expect("sh runs");
        let fds = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && fds.contains(" 1 -> "), "{fds}");
        let store_path = tmp.path().display().to_string();
        assert!(
            !fds.lines().any(|l| l.contains(&store_path)),
            "{data_file}: the child holds a file of the store:\n{fds}"
        );
        drop(store);
    }
}
