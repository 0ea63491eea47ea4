//! Issue 34, LMDB and SQLite: as root, a store is never opened in a directory another user can
//! write to or replace, since these backends open their files by name and a planted link would
//! turn root's writes against another file. A missing directory is created 0700; a fresh store
//! under a shared parent (`/dev/shm`, as the benches use) still works.
//!
//! Root-only: without root each test skips (fails under `CI=true`, see `common`).
#![cfg(all(any(feature = "lmdb", feature = "sqlite-db"), target_os = "linux"))]

mod common;

use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use common::{is_root, skip_or_fail};
use triebench_kv::{
    BackendSpec, FreshStores, KvError, KvResult, Profile, Store, StoreVisitor, WriteTx,
};

/// `nobody`: a uid that is not root (no account needs to exist for it).
const STRANGER: u32 = 65534;

/// Commits one entry.
struct WriteOne;

impl StoreVisitor for WriteOne {
    type Output = KvResult<()>;

    fn visit<S: Store + 'static>(self, store: S) -> KvResult<()> {
        let t = store.table("data")?;
        let mut w = store.writer()?;
        w.put(t, b"key", b"value")?;
        w.commit()
    }
}

/// Opens a store of `profile` in `dir` and writes to it.
fn open(profile: Profile, dir: &Path) -> KvResult<()> {
    BackendSpec::new(profile, Some(dir.to_path_buf()))?.open(&["data"], WriteOne)?
}

/// The profiles built in that keep their files by name in the directory.
fn file_profiles() -> Vec<Profile> {
    let mut profiles = Vec::new();
    #[cfg(feature = "lmdb")]
    profiles.extend([Profile::Lmdb, Profile::LmdbAsync]);
    #[cfg(feature = "sqlite-db")]
    profiles.extend([Profile::SqliteWal, Profile::SqliteRollback]);
    profiles
}

/// Where each profile's files go, relative to its directory: the links a stranger would plant.
fn planted_names(profile: Profile) -> Vec<&'static str> {
    match profile {
        Profile::Lmdb => vec!["lmdb/data.mdb", "lmdb/lock.mdb"],
        Profile::LmdbAsync => vec!["triebench.lmdb", "triebench.lmdb-lock"],
        _ => vec![
            "triebench.sqlite3",
            "triebench.sqlite3-wal",
            "triebench.sqlite3-shm",
            "triebench.sqlite3-journal",
        ],
    }
}

/// A private (0700, root's) directory for one test, or `None` (skipped) when not root.
fn scratch(test: &str) -> Option<tempfile::TempDir> {
    if !is_root() {
        skip_or_fail(&format!(
            "{test} needs root (the check applies to runs as root)"
        ));
        return None;
    }
    Some(tempfile::tempdir().expect("scratch directory"))
}

/// An empty file a planted link points at, which must stay empty.
fn victim(scratch: &Path, name: &str) -> PathBuf {
    let path = scratch.join(format!("victim-{name}"));
    std::fs::write(&path, b"").expect("victim");
    path
}

fn assert_refused(result: KvResult<()>, dir: &Path, profile: Profile) {
    match result {
        Err(KvError::SharedStoreDir { dir: refused, .. }) => assert_eq!(refused, dir),
        other => panic!(
            "{}: a store in {} should be refused, got {other:?}",
            profile.name(),
            dir.display()
        ),
    }
}

#[test]
fn a_strangers_directory_with_planted_links_is_refused() {
    let Some(scratch) = scratch("a_strangers_directory_with_planted_links_is_refused") else {
        return;
    };
    for profile in file_profiles() {
        let dir = scratch.path().join(format!("shared-{}", profile.name()));
        let mut victims = Vec::new();
        for name in planted_names(profile) {
            let link = dir.join(name);
            std::fs::create_dir_all(link.parent().expect("parent")).expect("planted dir");
            let target = victim(scratch.path(), &name.replace('/', "-"));
            symlink(&target, &link).expect("plant");
            std::os::unix::fs::lchown(&link, Some(STRANGER), Some(STRANGER)).expect("lchown");
            victims.push(target);
        }
        for d in [dir.clone(), dir.join("lmdb")] {
            if d.exists() {
                std::os::unix::fs::chown(&d, Some(STRANGER), Some(STRANGER)).expect("chown");
            }
        }
        let result = open(profile, &dir);
        for target in &victims {
            let len = std::fs::metadata(target).expect("victim").len();
            assert_eq!(
                len,
                0,
                "{}: {} was written",
                profile.name(),
                target.display()
            );
        }
        assert_refused(result, &dir, profile);
    }
}

#[test]
fn a_root_directory_others_can_write_to_is_refused() {
    let Some(scratch) = scratch("a_root_directory_others_can_write_to_is_refused") else {
        return;
    };
    for profile in file_profiles() {
        for mode in [0o775, 0o757, 0o1777] {
            let dir = scratch.path().join(format!("{}-{mode:o}", profile.name()));
            std::fs::create_dir(&dir).expect("dir");
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).expect("chmod");
            let result = open(profile, &dir);
            assert_refused(result, &dir, profile);
            let left = std::fs::read_dir(&dir).expect("read dir").count();
            assert_eq!(left, 0, "{} created files in {mode:o}", profile.name());
        }
    }
}

#[test]
fn a_strangers_link_as_the_directory_is_refused() {
    let Some(scratch) = scratch("a_strangers_link_as_the_directory_is_refused") else {
        return;
    };
    for profile in file_profiles() {
        let target = scratch.path().join(format!("target-{}", profile.name()));
        std::fs::create_dir(&target).expect("target");
        let dir = scratch.path().join(format!("link-{}", profile.name()));
        symlink(&target, &dir).expect("link");
        std::os::unix::fs::lchown(&dir, Some(STRANGER), Some(STRANGER)).expect("lchown");
        assert_refused(open(profile, &dir), &dir, profile);
        let left = std::fs::read_dir(&target).expect("read dir").count();
        assert_eq!(left, 0, "{} wrote through the link", profile.name());
    }
}

#[test]
fn a_private_directory_works_and_a_missing_one_is_made_0700() {
    let Some(scratch) = scratch("a_private_directory_works_and_a_missing_one_is_made_0700") else {
        return;
    };
    for profile in file_profiles() {
        let existing = scratch.path().join(format!("existing-{}", profile.name()));
        std::fs::create_dir(&existing).expect("dir");
        std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        open(profile, &existing).expect("a 0755 directory of root's");
        open(profile, &existing).expect("reopened");

        let missing = scratch
            .path()
            .join(format!("missing-{}", profile.name()))
            .join("store");
        open(profile, &missing).expect("a missing directory");
        for d in [missing.parent().expect("parent"), &missing] {
            let meta = std::fs::metadata(d).expect("made");
            assert_eq!(meta.mode() & 0o7777, 0o700, "{}", d.display());
            assert_eq!(meta.uid(), 0);
        }
    }
}

#[test]
fn fresh_stores_under_a_shared_sticky_parent_work() {
    let Some(scratch) = scratch("fresh_stores_under_a_shared_sticky_parent_work") else {
        return;
    };
    // Like /dev/shm, where the benches make their stores' fresh directories.
    let parent = scratch.path().join("shm");
    std::fs::create_dir(&parent).expect("parent");
    std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    for profile in file_profiles() {
        let stores = FreshStores::new(profile, &parent).expect("fresh stores");
        stores
            .run(&["data"], WriteOne)
            .expect("run")
            .expect("write");
    }
}
