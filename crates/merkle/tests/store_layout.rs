//! The store's layout version (see `triebench_merkle::store_layout`), on real LMDB and SQLite
//! files: a store of the old layout (nodes keyed by 64 hex digits, no marker) and one recording
//! a newer layout are refused by every way in (new view, view at a root, owned state, prune),
//! with a message saying what was found, what this build reads and what to do, and are left
//! byte for byte as they were, also on disk after reopening.

mod common;

use std::path::Path;

use common::{contents, set};
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::sqlite::{SqliteMode, SqliteStore};
use triebench_kv::{btree::BTreeStore, KeyRange, ReadTx, Store, WriteTx};
use triebench_merkle::store_layout::{node_key, LAYOUT_KEY, LAYOUT_MARKER, LAYOUT_VERSION};
use triebench_merkle::{MerkleError, MerkleTrie, TrieState, EMPTY_ROOT, TABLES};

/// A file-backed backend, opened (and reopened) on a directory.
type Open = fn(&Path) -> Box<dyn Fn() -> AnyFile>;

/// The two file backends under test, behind one type.
enum AnyFile {
    Lmdb(LmdbStore),
    Sqlite(SqliteStore),
}

fn lmdb(dir: &Path) -> Box<dyn Fn() -> AnyFile> {
    let dir = dir.to_path_buf();
    Box::new(move || {
        AnyFile::Lmdb(LmdbStore::open(&dir, TABLES, LmdbOptions::default()).expect("lmdb"))
    })
}

fn sqlite(dir: &Path) -> Box<dyn Fn() -> AnyFile> {
    let dir = dir.to_path_buf();
    Box::new(move || {
        AnyFile::Sqlite(SqliteStore::open(&dir, TABLES, SqliteMode::Rollback).expect("sqlite"))
    })
}

const BACKENDS: [(&str, Open); 2] = [("lmdb", lmdb), ("sqlite", sqlite)];

/// Runs `f` on the store, whichever backend it is.
macro_rules! with {
    ($store:expr, |$s:ident| $body:expr) => {
        match &$store {
            AnyFile::Lmdb($s) => $body,
            AnyFile::Sqlite($s) => $body,
        }
    };
}

/// What an older triebench wrote for a few commits: the same entries as this build's trie
/// writes, `main`'s keys as 64 hex digits and no layout marker. Returns the last root.
fn write_old_layout<S: Store>(store: &S) -> String {
    let now = BTreeStore::open(TABLES).expect("btree");
    let mut trie = MerkleTrie::new(&now).expect("new");
    for (i, value) in [b"1", b"2"].into_iter().enumerate() {
        let root = trie
            .commit(&[set("ab00", value), set(&format!("cd0{i}"), value)])
            .expect("commit");
        trie.set_root(&root).expect("set root");
    }
    let r = now.reader().expect("reader");
    let mut w = store.writer().expect("writer");
    for name in TABLES {
        let (from, to) = (now.table(name).expect("t"), store.table(name).expect("t"));
        for (key, value) in r.collect(from, &KeyRange::all()).expect("scan") {
            if *name != "main" {
                w.put(to, &key, &value).expect("put");
            } else if key.len() == 32 {
                w.put(to, hex::encode(&key).as_bytes(), &value)
                    .expect("put");
            }
        }
    }
    w.commit().expect("commit");
    trie.root().to_string()
}

/// Every way a build opens or changes a trie store, each expected to refuse it.
fn refusals<S: Store>(store: &S, root: &str) -> Vec<(&'static str, MerkleError)> {
    let err = |r: Result<(), MerkleError>| r.expect_err("the store must be refused");
    vec![
        ("new", err(MerkleTrie::new(store).map(drop))),
        ("at_root", err(MerkleTrie::at_root(store, root).map(drop))),
        (
            "at_root(empty)",
            err(MerkleTrie::at_root(store, EMPTY_ROOT).map(drop)),
        ),
        ("prune", err(MerkleTrie::prune(store, root).map(drop))),
    ]
}

#[test]
fn an_old_layout_store_is_refused_and_left_unchanged() {
    for (name, open) in BACKENDS {
        let dir = tempfile::tempdir().expect("dir");
        let open = open(dir.path());
        let store = open();
        let root = with!(store, |s| write_old_layout(s));
        let before = with!(store, |s| contents(s));
        let refused = with!(store, |s| refusals(s, &root));
        for (call, error) in refused {
            let message = error.to_string();
            assert!(
                matches!(&error, MerkleError::OldStoreLayout { supported: 2, .. }),
                "{name} {call}: {error:?}"
            );
            for said in [
                "empty root under its 64-hex-digit key",
                "this build reads store layout 2",
                "raw 32-byte hash",
                "written by an older triebench",
                "re-create it",
                "run the fill again",
            ] {
                assert!(message.contains(said), "{name} {call}: {message}");
            }
        }
        assert_eq!(with!(store, |s| contents(s)), before, "{name}: unchanged");
        drop(store);
        let store = open();
        assert_eq!(
            with!(store, |s| contents(s)),
            before,
            "{name}: unchanged on disk"
        );
        let owned = match store {
            AnyFile::Lmdb(s) => TrieState::new(s).map(drop),
            AnyFile::Sqlite(s) => TrieState::new(s).map(drop),
        };
        assert!(
            matches!(owned, Err(MerkleError::OldStoreLayout { .. })),
            "{name}: {owned:?}"
        );
        assert_eq!(with!(open(), |s| contents(s)), before, "{name}");
    }
}

#[test]
fn an_old_store_without_its_empty_root_is_still_told_by_its_keys() {
    let dir = tempfile::tempdir().expect("dir");
    let store = lmdb(dir.path())();
    let root = with!(store, |s| {
        let root = write_old_layout(s);
        let main = s.table("main").expect("main");
        let mut w = s.writer().expect("writer");
        w.delete(main, EMPTY_ROOT.as_bytes()).expect("delete");
        w.commit().expect("commit");
        root
    });
    let error = with!(store, |s| MerkleTrie::at_root(s, &root).map(drop)).expect_err("refused");
    assert!(
        matches!(&error, MerkleError::OldStoreLayout { found, .. } if found.contains("64-byte keys")),
        "{error:?}"
    );
}

#[test]
fn a_newer_or_unknown_layout_is_refused_and_left_unchanged() {
    for (name, open) in BACKENDS {
        for (marker, newer) in [(&3u32.to_be_bytes()[..], true), (b"\x01", false)] {
            let dir = tempfile::tempdir().expect("dir");
            let open = open(dir.path());
            let store = open();
            let root = with!(store, |s| {
                let trie = MerkleTrie::new(s).expect("new");
                let root = trie.commit(&[set("ab", b"1")]).expect("commit");
                let main = s.table("main").expect("main");
                let mut w = s.writer().expect("writer");
                w.put(main, LAYOUT_KEY, marker).expect("put");
                w.commit().expect("commit");
                root
            });
            let before = with!(store, |s| contents(s));
            drop(store);
            let store = open();
            for (call, error) in with!(store, |s| refusals(s, &root)) {
                let message = error.to_string();
                if newer {
                    assert!(
                        matches!(
                            &error,
                            MerkleError::NewerStoreLayout {
                                found: 3,
                                supported: 2
                            }
                        ),
                        "{name} {call}: {error:?}"
                    );
                    for said in ["layout 3", "newer than this build reads (2)", "re-create"] {
                        assert!(message.contains(said), "{name} {call}: {message}");
                    }
                } else {
                    assert!(
                        matches!(&error, MerkleError::CorruptLayoutMarker { found, .. } if found == "01"),
                        "{name} {call}: {error:?}"
                    );
                }
            }
            assert_eq!(with!(store, |s| contents(s)), before, "{name}: unchanged");
        }
    }
}

#[test]
fn a_fresh_store_records_its_layout_with_the_empty_root() {
    for (name, open) in BACKENDS {
        let dir = tempfile::tempdir().expect("dir");
        let open = open(dir.path());
        let store = open();
        // Nothing stored yet: no root is known, and that is what a view is told.
        let unknown = with!(store, |s| MerkleTrie::at_root(s, EMPTY_ROOT).map(drop));
        assert!(
            matches!(unknown, Err(MerkleError::UnknownRoot { .. })),
            "{name}: {unknown:?}"
        );
        with!(store, |s| MerkleTrie::new(s).map(drop)).expect("new");
        let main = with!(store, |s| {
            let r = s.reader().expect("reader");
            r.collect(s.table("main").expect("main"), &KeyRange::all())
                .expect("scan")
        });
        let empty_key = node_key(EMPTY_ROOT).expect("key").to_vec();
        let expected = vec![
            (empty_key, vec![0xa2, 0x61, b'c', 0xa0, 0x61, b'v', 0xf6]),
            (LAYOUT_KEY.to_vec(), LAYOUT_MARKER.to_vec()),
        ];
        assert_eq!(main, expected, "{name}");
        assert_eq!(LAYOUT_MARKER, LAYOUT_VERSION.to_be_bytes());
        drop(store);
        let store = open();
        let root = with!(store, |s| {
            let trie = MerkleTrie::at_root(s, EMPTY_ROOT).expect("reopened");
            trie.commit(&[set("ab", b"1")]).expect("commit")
        });
        let stored = with!(store, |s| {
            let r = s.reader().expect("reader");
            r.contains(
                s.table("main").expect("main"),
                &node_key(&root).expect("key"),
            )
            .expect("contains")
        });
        assert!(stored, "{name}: the new root is stored under its raw hash");
    }
}
