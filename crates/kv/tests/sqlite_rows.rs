//! The SQLite layout that indexes a key's first 8 bytes (its head), checked where it can go
//! wrong: keys sharing a head (one holds the row, the others are spilled), keys too short to
//! have one, a row freed while keys with its head are spilled, scans merging rows and spilled
//! keys. A property test runs random operations on a store and on a `BTreeMap` and compares
//! every answer; and a store laid out by an earlier triebench is refused and left as it was.

#![cfg(feature = "sqlite-db")]

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

use proptest::prelude::*;
use triebench_kv::sqlite::{SqliteMode, SqliteStore, DB_FILE};
use triebench_kv::{KeyRange, KvError, ReadTx, Store, WriteTx};
use triebench_kv_conformance::TABLES;

/// Keys drawn so that many share their first 8 bytes: one of three heads and a short tail, or a
/// key under 8 bytes, or exactly 8.
fn key() -> impl Strategy<Value = Vec<u8>> {
    let heads: [[u8; 8]; 3] = [*b"aaaaaaaa", *b"aaaaaaab", [0xff; 8]];
    prop_oneof![
        4 => (0..3usize, prop::collection::vec(0u8..3, 0..3)).prop_map(move |(h, tail)| {
            let mut key = heads[h].to_vec();
            key.extend(tail);
            key
        }),
        1 => prop::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(0xff)], 0..9),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Insert(Vec<u8>, u8),
    Put(Vec<u8>, u8),
    Delete(Vec<u8>),
    Get(Vec<u8>),
    Scan(Vec<u8>, Option<Vec<u8>>),
    Commit,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (key(), any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
        3 => (key(), any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        3 => key().prop_map(Op::Delete),
        2 => key().prop_map(Op::Get),
        1 => (key(), prop::option::of(key())).prop_map(|(s, e)| Op::Scan(s, e)),
        1 => Just(Op::Commit),
    ]
}

/// A value that tells which operation wrote it, long enough now and then to spill onto overflow
/// pages.
fn value(tag: u8) -> Vec<u8> {
    let len = if tag.is_multiple_of(16) {
        5_000
    } else {
        1 + usize::from(tag % 5)
    };
    vec![tag; len]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_store_answers_as_a_map_does(ops in prop::collection::vec(op(), 1..120)) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path(), TABLES, SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("main");
        let mut committed: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut model = committed.clone();
        let mut writer = store.writer().expect("writer");
        for op in ops {
            match op {
                Op::Insert(k, tag) => {
                    let outcome = writer.insert(table, &k, &value(tag));
                    match model.entry(k) {
                        Entry::Occupied(present) => prop_assert!(
                            matches!(outcome, Err(KvError::DuplicateEntry { .. })),
                            "insert of present {:?}: {outcome:?}",
                            present.key()
                        ),
                        Entry::Vacant(absent) => {
                            outcome.expect("insert");
                            absent.insert(value(tag));
                        }
                    }
                }
                Op::Put(k, tag) => {
                    writer.put(table, &k, &value(tag)).expect("put");
                    model.insert(k, value(tag));
                }
                Op::Delete(k) => {
                    writer.delete(table, &k).expect("delete");
                    model.remove(&k);
                }
                Op::Get(k) => {
                    prop_assert_eq!(writer.get(table, &k).expect("get"), model.get(&k).cloned());
                    prop_assert_eq!(writer.contains(table, &k).expect("contains"), model.contains_key(&k));
                }
                Op::Scan(start, end) => {
                    let range = KeyRange { start: start.clone(), end: end.clone() };
                    let want: Vec<_> = model
                        .iter()
                        .filter(|(k, _)| **k >= start && end.as_ref().is_none_or(|e| *k < e))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    prop_assert_eq!(writer.collect(table, &range).expect("scan"), want);
                }
                Op::Commit => {
                    writer.commit().expect("commit");
                    committed = model.clone();
                    writer = store.writer().expect("writer");
                }
            }
            prop_assert_eq!(writer.count(table).expect("count"), model.len() as u64);
        }
        // Dropped uncommitted: what a reader sees is the last commit.
        drop(writer);
        let reader = store.reader().expect("reader");
        let all = reader.collect(table, &KeyRange::all()).expect("scan");
        let want: Vec<_> = committed.into_iter().collect();
        prop_assert_eq!(all, want);
    }
}

/// A key spilled in the transaction that then frees its head moves into the row, whether it was
/// spilled by `put` or `insert`, and after a delete in the same transaction found nothing
/// spilled for its own head (a writer that remembered that answer would lose the key).
#[test]
fn a_key_spilled_after_the_writer_saw_none_takes_the_freed_row() {
    for by_put in [true, false] {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path(), TABLES, SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("main");
        let mut writer = store.writer().expect("writer");
        writer.put(table, b"zzzzzzzz", b"z").expect("put");
        // Finds nothing spilled for its head.
        writer.delete(table, b"zzzzzzzz").expect("delete");
        writer.put(table, b"aaaaaaaa1", b"row").expect("put");
        if by_put {
            writer.put(table, b"aaaaaaaa2", b"spilled").expect("put");
        } else {
            writer
                .insert(table, b"aaaaaaaa2", b"spilled")
                .expect("insert");
        }
        writer.delete(table, b"aaaaaaaa1").expect("delete");
        writer.commit().expect("commit");
        let reader = store.reader().expect("reader");
        assert_eq!(
            reader.get(table, b"aaaaaaaa2").expect("get"),
            Some(b"spilled".to_vec()),
            "spilled by {}",
            if by_put { "put" } else { "insert" }
        );
    }
}

/// A scan that stops early stops: the visitor is not called again after it breaks.
#[test]
fn a_scan_across_rows_and_spill_stops_when_told() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path(), TABLES, SqliteMode::Wal).expect("open");
    let table = store.table("main").expect("main");
    let mut writer = store.writer().expect("writer");
    for key in [
        &b"aaaaaaaa1"[..],
        b"aaaaaaaa0",
        b"aaaaaaaa2",
        b"ab",
        b"zzzzzzzz",
    ] {
        writer.put(table, key, b"v").expect("put");
    }
    let mut seen = Vec::new();
    writer
        .scan(table, &KeyRange::all(), |k, _| {
            seen.push(k.to_vec());
            if seen.len() == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .expect("scan");
    assert_eq!(
        seen,
        vec![
            b"aaaaaaaa0".to_vec(),
            b"aaaaaaaa1".to_vec(),
            b"aaaaaaaa2".to_vec()
        ]
    );
}

/// A database written by an earlier triebench (one `key BLOB PRIMARY KEY` table per declared
/// table, no layout version) is refused with a message saying to re-create it, and its tables
/// and rows are left as they were (opening it still sets the profile's journal mode, as any
/// open does, before the layout is read).
#[test]
fn an_earlier_layout_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(DB_FILE);
    {
        let conn = rusqlite::Connection::open(&path).expect("create");
        conn.execute_batch(
            "CREATE TABLE main (key BLOB PRIMARY KEY, value BLOB NOT NULL); \
             INSERT INTO main VALUES (x'0011223344556677889900', x'01');",
        )
        .expect("old layout");
    }
    let contents = |path: &std::path::Path| -> Vec<(String, Vec<u8>)> {
        let conn = rusqlite::Connection::open(path).expect("open");
        let mut out: Vec<(String, Vec<u8>)> = conn
            .prepare("SELECT name, coalesce(sql, '') FROM sqlite_master ORDER BY name")
            .expect("schema")
            .query_map([], |row| {
                Ok((row.get(0)?, row.get::<_, String>(1)?.into_bytes()))
            })
            .expect("schema")
            .collect::<Result<_, _>>()
            .expect("schema");
        let rows: Vec<(Vec<u8>, Vec<u8>)> = conn
            .prepare("SELECT key, value FROM main")
            .expect("rows")
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        out.extend(rows.into_iter().map(|(k, v)| (hex_of(&k), v)));
        out
    };
    let before = contents(&path);
    assert_eq!(before.len(), 3, "{before:?}");
    for mode in [SqliteMode::Wal, SqliteMode::Rollback] {
        match SqliteStore::open(dir.path(), TABLES, mode) {
            Err(err @ KvError::OtherLayout { .. }) => {
                let text = err.to_string();
                assert!(text.contains("re-create"), "{text}");
                assert!(text.contains("before 2026-11-29"), "{text}");
            }
            other => panic!("{mode:?}: expected OtherLayout, got {other:?}"),
        }
    }
    assert!(contents(&path) == before, "the refused store changed");

    // A newer layout version is refused too.
    let newer = tempfile::tempdir().expect("temp dir");
    let conn = rusqlite::Connection::open(newer.path().join(DB_FILE)).expect("create");
    conn.execute_batch("PRAGMA user_version = 9")
        .expect("version");
    drop(conn);
    match SqliteStore::open(newer.path(), TABLES, SqliteMode::Wal) {
        Err(err @ KvError::OtherLayout { .. }) => {
            assert!(err.to_string().contains("newer"), "{err}");
        }
        other => panic!("expected OtherLayout, got {other:?}"),
    }
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A store of this layout reopens, and one opened later with a table more gains it.
#[test]
fn this_layout_reopens_and_gains_tables() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let store = SqliteStore::open(dir.path(), &["main"], SqliteMode::Wal).expect("open");
        let table = store.table("main").expect("main");
        let mut writer = store.writer().expect("writer");
        writer.put(table, b"0123456789", b"v").expect("put");
        writer.commit().expect("commit");
    }
    let store = SqliteStore::open(dir.path(), &["main", "more"], SqliteMode::Wal).expect("reopen");
    let main = store.table("main").expect("main");
    let more = store.table("more").expect("more");
    let reader = store.reader().expect("reader");
    assert_eq!(
        reader.get(main, b"0123456789").expect("get"),
        Some(b"v".to_vec())
    );
    assert_eq!(reader.count(more).expect("count"), 0);
}
