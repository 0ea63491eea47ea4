//! A full disk is a clear, typed error naming the directory and its free space: a small tmpfs
//! is filled by commits until one fails. Needs root for the mount (skipped otherwise, except
//! under `CI=true`, where that fails). `lmdb-async` is included: with WRITEMAP a full disk used
//! to end in SIGBUS, which would kill this test binary; its writer now reserves blocks first.
//! `redis-aof`'s managed server exits when it cannot write its append-only file; that too is
//! a DiskFull. After the error, the store reopens and every batch acknowledged before it reads
//! back. A store opened on a disk that is already full is a DiskFull too (LMDB used to die of
//! SIGBUS writing its lock file's map; managed PostgreSQL and Redis servers failed to start
//! with their logs as the only clue).
#![cfg(all(feature = "lmdb", feature = "sqlite-db", target_os = "linux"))]

use std::path::Path;
use std::process::Command;

use triebench_kv::{BackendSpec, KvError, Profile, ReadTx, Store, StoreVisitor, WriteTx};
use triebench_kv_conformance::TABLES;

/// A tmpfs of `size` mounted on a fresh temporary directory, unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().expect("temp dir");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let reason = "cannot mount a tmpfs (needs root)";
            assert!(
                !std::env::var("CI").is_ok_and(|v| v == "true"),
                "{reason} under CI=true"
            );
            println!("skipped: {reason}");
            return None;
        }
        Some(SmallDisk { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazily: a child another test has just forked holds copies of this process's files
        // until it execs, and a plain unmount in that instant fails as busy and leaves the
        // mount behind. Detached, it goes once the last of them is closed.
        let _ = Command::new("umount")
            .arg("--lazy")
            .arg(self.dir.path())
            .status();
    }
}

/// One batch's value: 64 KiB, four keys per batch, so a batch is 256 KiB.
static VALUE: [u8; 64 << 10] = [0x5a; 64 << 10];

fn key(batch: u32, i: u32) -> String {
    format!("{batch:08}-{i}")
}

/// Commits 256 KiB batches until one fails; returns that error and how many batches were
/// acknowledged before it.
struct Fill;

impl StoreVisitor for Fill {
    type Output = Option<(KvError, u32)>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let table = store.table(TABLES[0]).ok()?;
        for batch in 0..1000u32 {
            let result = store.writer().and_then(|mut w| {
                for i in 0..4u32 {
                    w.put(table, key(batch, i).as_bytes(), &VALUE)?;
                }
                w.commit()
            });
            if let Err(e) = result {
                return Some((e, batch));
            }
        }
        None
    }
}

/// Reads back every key of the first `acked` batches from a reopened store.
struct ReadBack {
    acked: u32,
}

impl StoreVisitor for ReadBack {
    type Output = Result<(), String>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let table = store.table(TABLES[0]).map_err(|e| e.to_string())?;
        let reader = store.reader().map_err(|e| e.to_string())?;
        for batch in 0..self.acked {
            for i in 0..4u32 {
                let got = reader
                    .get(table, key(batch, i).as_bytes())
                    .map_err(|e| e.to_string())?;
                if got.as_deref() != Some(&VALUE[..]) {
                    return Err(format!("acknowledged batch {batch} lost"));
                }
            }
        }
        Ok(())
    }
}

fn check(profile: Profile, root: &Path) {
    let dir = root.join(profile.name());
    let mut spec = BackendSpec::new(profile, Some(dir.clone())).expect("spec");
    spec.lmdb_map_size = 1 << 30;
    let (err, acked) = spec
        .open(TABLES, Fill)
        .expect("open on the small disk")
        .unwrap_or_else(|| panic!("{profile}: 250 MiB fitted on an 8 MiB disk"));
    let msg = err.to_string();
    assert!(
        matches!(err, KvError::DiskFull { .. }),
        "{profile}: not a DiskFull error: {msg}"
    );
    assert!(
        msg.contains(&dir.display().to_string()) && msg.contains("free"),
        "{profile}: {msg}"
    );
    assert!(acked > 0, "{profile}: not one batch fitted: {msg}");
    let reopened = spec
        .open(TABLES, ReadBack { acked })
        .unwrap_or_else(|e| panic!("{profile}: cannot reopen after the full disk: {e}"));
    if let Err(lost) = reopened {
        panic!("{profile}: {lost}");
    }
}

#[test]
fn a_full_disk_is_a_clear_error_naming_the_directory() {
    for profile in [
        Profile::Lmdb,
        Profile::LmdbAsync,
        Profile::SqliteWal,
        Profile::SqliteWalFull,
        Profile::SqliteRollback,
        Profile::SqliteWalMmap,
        Profile::SqliteWalFullMmap,
        #[cfg(feature = "redis-db")]
        Profile::RedisAof,
    ] {
        let Some(disk) = SmallDisk::mount("8m") else {
            return;
        };
        check(profile, disk.dir.path());
    }
}

/// Fills `dir`'s filesystem with one file until a write fails for want of space.
fn fill(dir: &Path) {
    use std::io::Write;
    let mut file = std::fs::File::create(dir.join("filler")).expect("filler");
    let chunk = [0u8; 4096];
    loop {
        match file.write_all(&chunk) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => return,
            Err(e) => panic!("filling {}: {e}", dir.display()),
        }
    }
}

/// Opens the store and leaves it: the test looks only at whether opening succeeded.
struct OpenOnly;

impl StoreVisitor for OpenOnly {
    type Output = ();

    fn visit<S: Store + 'static>(self, _store: S) {}
}

#[test]
fn opening_a_store_on_a_full_disk_is_a_clear_error() {
    for profile in [
        Profile::Lmdb,
        Profile::LmdbAsync,
        Profile::SqliteWal,
        Profile::SqliteRollback,
        #[cfg(feature = "postgres-db")]
        Profile::Postgres,
        #[cfg(feature = "redis-db")]
        Profile::RedisAof,
    ] {
        let Some(disk) = SmallDisk::mount("2m") else {
            return;
        };
        fill(disk.dir.path());
        let dir = disk.dir.path().join(profile.name());
        let spec = BackendSpec::new(profile, Some(dir.clone())).expect("spec");
        match spec.open(TABLES, OpenOnly) {
            Err(KvError::DiskFull { dir: named, .. }) => {
                assert!(
                    dir.starts_with(&named),
                    "{profile}: names {}",
                    named.display()
                )
            }
            Err(other) => panic!("{profile}: not a DiskFull error: {other}"),
            Ok(()) => panic!("{profile}: opened a store on a full disk"),
        }
    }
}
