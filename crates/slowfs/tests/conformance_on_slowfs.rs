//! The kv conformance suite on one slowfs mount (profile `none`), for the backends whose files
//! a filesystem sees: LMDB (default and Transact flags), SQLite (WAL, WAL+FULL, rollback) and
//! Redis with its AOF. LMDB and SQLite WAL map files with shared writable `mmap`, so this also
//! checks that slowfs supports it.
//!
//! The mount is shared by every case and lives until the test process exits: an `atexit`
//! handler stops slowfs (SIGTERM; it unmounts itself) and removes the temp dirs, and slowfs is
//! spawned with a parent-death signal in case the process dies without running it.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::Duration;

use tempfile::TempDir;
use triebench_kv_conformance::Capabilities;

/// LMDB and the SQLite WAL modes: persistent, snapshot readers, duplicates refused at insert.
const SNAPSHOTS: Capabilities = Capabilities {
    persistent: true,
    snapshot_reads: true,
    deferred_duplicate_check: false,
};

struct Shared {
    mnt: PathBuf,
    child: Mutex<Option<Child>>,
    dirs: Mutex<Vec<TempDir>>,
}

static SHARED: OnceLock<Option<Shared>> = OnceLock::new();

/// The shared mount point, mounted on first use; `None` when the tests should skip.
fn mount_base() -> Option<PathBuf> {
    SHARED
        .get_or_init(start_shared)
        .as_ref()
        .map(|s| s.mnt.clone())
}

fn start_shared() -> Option<Shared> {
    if let Some(reason) = common::fuse_unavailable() {
        common::skip_or_fail(&reason);
        return None;
    }
    let backing = tempfile::tempdir().expect("backing dir");
    let mnt_dir = tempfile::tempdir().expect("mount point");
    let mnt = mnt_dir
        .path()
        .canonicalize()
        .expect("canonical mount point");
    // The parent-death signal fires when the spawning *thread* exits, so spawn from a thread
    // that lives as long as the process.
    let (tx, rx) = mpsc::channel();
    let (b, m) = (backing.path().to_path_buf(), mnt.clone());
    std::thread::Builder::new()
        .name("slowfs-owner".into())
        .spawn(move || {
            let args = ["--profile".to_string(), "none".to_string()];
            let _ = tx.send(common::spawn_slowfs(&args, &b, &m));
            loop {
                std::thread::park();
            }
        })
        .expect("owner thread");
    let mut child = rx.recv().expect("owner thread").expect("spawn slowfs");
    if !common::wait_mounted(&mut child, &mnt) {
        return None;
    }
    // SAFETY: registering a plain extern "C" function.
    unsafe { libc::atexit(stop_shared) };
    Some(Shared {
        mnt,
        child: Mutex::new(Some(child)),
        dirs: Mutex::new(vec![mnt_dir, backing]),
    })
}

/// At process exit: SIGTERM slowfs (it unmounts), wait, make sure nothing stays mounted, and
/// remove the temp dirs. Must not panic (it runs inside `exit`).
extern "C" fn stop_shared() {
    let Some(Some(shared)) = SHARED.get() else {
        return;
    };
    let child = shared.child.lock().ok().and_then(|mut c| c.take());
    if let Some(mut child) = child {
        // SAFETY: signalling our own child process by its pid.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let _ = common::wait_child(&mut child, Duration::from_secs(10));
    }
    if common::is_mounted(&shared.mnt) {
        common::unmount(&shared.mnt);
    }
    if let Ok(mut dirs) = shared.dirs.lock() {
        dirs.clear();
    }
}

fn base() -> Option<PathBuf> {
    mount_base()
}

#[test]
fn the_shared_mount_is_slowfs() {
    let Some(mnt) = base() else { return };
    let stats = common::live_stats(&mnt);
    assert_eq!(stats.profile, "none");
    assert!(common::is_mounted(Path::new(&mnt)));
}

mod lmdb_default {
    use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
    use triebench_kv_conformance::TABLES;

    triebench_kv_conformance::conformance_tests!(
        in match super::base() { Some(p) => p, None => return };
        super::SNAPSHOTS,
        |dir: &std::path::Path| {
            LmdbStore::open(dir, TABLES, LmdbOptions { map_size: 1 << 30, transact_flags: false })
        }
    );
}

mod lmdb_async {
    use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
    use triebench_kv_conformance::TABLES;

    triebench_kv_conformance::conformance_tests!(
        in match super::base() { Some(p) => p, None => return };
        super::SNAPSHOTS,
        |dir: &std::path::Path| {
            LmdbStore::open(dir, TABLES, LmdbOptions { map_size: 1 << 30, transact_flags: true })
        }
    );
}

mod sqlite_wal {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::TABLES;

    triebench_kv_conformance::conformance_tests!(
        in match super::base() { Some(p) => p, None => return };
        super::SNAPSHOTS,
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::Wal)
    );
}

mod sqlite_wal_full {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::TABLES;

    triebench_kv_conformance::conformance_tests!(
        in match super::base() { Some(p) => p, None => return };
        super::SNAPSHOTS,
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::WalFull)
    );
}

/// Rollback-mode readers read per statement (no snapshot), as in kv's own suite.
mod sqlite_rollback {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        in match super::base() { Some(p) => p, None => return };
        Capabilities { persistent: true, snapshot_reads: false, deferred_duplicate_check: false },
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::Rollback)
    );
}

/// `redis-aof`: a managed redis-server per case with `--dir` on the mount and
/// `appendfsync always`.
mod redis_aof {
    use triebench_kv::redis::{RedisOptions, RedisStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        in match super::base() { Some(p) => p, None => return };
        Capabilities { persistent: true, snapshot_reads: false, deferred_duplicate_check: true },
        |dir: &std::path::Path| {
            RedisStore::open(dir, TABLES, RedisOptions { url: None, append_only: true, ..RedisOptions::default() })
        }
    );
}
