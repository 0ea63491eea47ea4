//! A full disk is a clear, typed error naming the directory and its free space: a small tmpfs
//! is filled by commits until one fails. Needs root for the mount (skipped otherwise, except
//! under `CI=true`, where that fails). `lmdb-async` is included: with WRITEMAP a full disk used
//! to end in SIGBUS, which would kill this test binary; its writer now reserves blocks first.
//! After the error, every batch committed before it still reads back.
#![cfg(all(feature = "lmdb", feature = "sqlite-db", target_os = "linux"))]

use std::path::Path;
use std::process::Command;

use triebench_kv::conformance::TABLES;
use triebench_kv::{BackendSpec, KvError, Profile, Store, StoreVisitor, WriteTx};

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
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Commits 256 KiB batches until one fails; returns that error and checks that every batch
/// committed before it reads back.
struct Fill;

impl StoreVisitor for Fill {
    type Output = Option<KvError>;

    fn visit<S: Store>(self, store: S) -> Option<KvError> {
        use triebench_kv::ReadTx;
        let table = store.table(TABLES[0]).ok()?;
        let value = vec![0x5au8; 64 << 10];
        for batch in 0..1000u32 {
            let result = store.writer().and_then(|mut w| {
                for i in 0..4u32 {
                    w.put(table, format!("{batch:08}-{i}").as_bytes(), &value)?;
                }
                w.commit()
            });
            if let Err(e) = result {
                let reader = store.reader().expect("a reader after the full disk");
                for acked in 0..batch {
                    for i in 0..4u32 {
                        let key = format!("{acked:08}-{i}");
                        let got = reader.get(table, key.as_bytes()).expect("read back");
                        assert_eq!(got.as_deref(), Some(&value[..]), "batch {acked} lost");
                    }
                }
                return Some(e);
            }
        }
        None
    }
}

fn check(profile: Profile, root: &Path) {
    let dir = root.join(profile.name());
    let mut spec = BackendSpec::new(profile, Some(dir.clone())).expect("spec");
    spec.lmdb_map_size = 1 << 30;
    let err = spec
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
}

#[test]
fn a_full_disk_is_a_clear_error_naming_the_directory() {
    for profile in [
        Profile::Lmdb,
        Profile::LmdbAsync,
        Profile::SqliteWal,
        Profile::SqliteWalFull,
        Profile::SqliteRollback,
    ] {
        let Some(disk) = SmallDisk::mount("8m") else {
            return;
        };
        check(profile, disk.dir.path());
    }
}
