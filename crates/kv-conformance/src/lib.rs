//! `triebench-kv-conformance`: the suite every triebench-kv backend passes, generic over
//! [`Store`], kept out of the kv library so no build of it carries the suite (as parity-common
//! keeps `kvdb-shared-tests` beside `kvdb`).
//!
//! Each case opens its store through an opener that, called again, reopens the same files, so
//! persistence can be checked. Cases panic on failure, like test assertions: call them from
//! `#[test]` functions (the [`conformance_tests!`](crate::conformance_tests) macro writes one test
//! per case for a backend).

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::Duration;

use triebench_kv::{KeyRange, KvError, KvResult, ReadTx, Store, Table, WriteTx};

/// Tables every case opens its store with.
pub const TABLES: &[&str] = &["main", "change_log", "duplicate_log"];

/// What a backend promises beyond the trait's common ground; cases assert accordingly.
#[derive(Debug, Clone, Copy)]
pub struct Capabilities {
    /// Committed data survives closing and reopening the store.
    pub persistent: bool,
    /// A reader sees a snapshot: commits after it opened are invisible to it.
    pub snapshot_reads: bool,
    /// A clash of `insert` with committed data may surface only at `commit` (Redis).
    pub deferred_duplicate_check: bool,
}

fn main_table<S: Store>(store: &S) -> Table {
    store.table("main").expect("store declares `main`")
}

fn commit_puts<S: Store>(store: &S, table: Table, entries: &[(&[u8], &[u8])]) {
    let mut w = store.writer().expect("open writer");
    for (k, v) in entries {
        w.put(table, k, v).expect("put");
    }
    w.commit().expect("commit");
}

fn read<S: Store>(store: &S, table: Table, key: &[u8]) -> Option<Vec<u8>> {
    store
        .reader()
        .expect("open reader")
        .get(table, key)
        .expect("get")
}

/// Runs `changes` in a writer, then the preconditions `require` asks, then commits: `Ok` if it
/// committed, `Err` with the precondition failure, whether reported by the call or by `commit`.
fn commit_requiring<S: Store>(
    store: &S,
    require: impl FnOnce(&mut S::Writer<'_>) -> KvResult<()>,
    changes: impl FnOnce(&mut S::Writer<'_>),
) -> Result<(), String> {
    let mut w = store.writer().expect("writer");
    let outcome = match require(&mut w) {
        Ok(()) => {
            changes(&mut w);
            w.commit()
        }
        Err(e) => Err(e),
    };
    match outcome {
        Ok(()) => Ok(()),
        Err(KvError::PreconditionFailed { detail }) => Err(detail),
        Err(other) => panic!("expected a precondition failure or a commit, got {other:?}"),
    }
}

/// `require_absent` and `require_value` let a transaction commit only when the store holds what
/// it expects, checked against committed data (at the call or with the commit) and against its
/// own pending changes; a failed precondition applies nothing of the transaction.
pub fn preconditions<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    let log = store.table("change_log").expect("change_log");
    commit_puts(&store, t, &[(b"held", b"v1")]);
    commit_puts(&store, log, &[(b"entry", b"e1")]);
    let put = |key: &'static [u8]| move |w: &mut S::Writer<'_>| w.put(t, key, b"new").expect("put");

    // Held: the transaction commits.
    let held = commit_requiring(
        &store,
        |w| {
            w.require_absent(t, b"fresh")?;
            w.require_value(t, b"held", b"v1")?;
            w.require_value(log, b"entry", b"e1")
        },
        put(b"fresh"),
    );
    assert_eq!(held, Ok(()), "every precondition holds");
    assert_eq!(read(&store, t, b"fresh").as_deref(), Some(&b"new"[..]));

    // Each kind of failure applies nothing: not the put, nor anything before it.
    for (case, key) in [b"a1", b"a2", b"a3", b"a4"].into_iter().enumerate() {
        let outcome = commit_requiring(
            &store,
            |w| failing_requirement(case, w, t, log),
            |w| {
                w.put(t, key, b"x").expect("put");
                w.put(log, key, b"x").expect("put");
            },
        );
        assert!(outcome.is_err(), "a failed precondition refuses the commit");
        assert_eq!(
            read(&store, t, key),
            None,
            "nothing of the transaction applied"
        );
        assert_eq!(
            read(&store, log, key),
            None,
            "nothing of the transaction applied"
        );
    }
    assert_eq!(read(&store, t, b"held").as_deref(), Some(&b"v1"[..]));

    // A key this transaction changed is checked as it sees it.
    let own = commit_requiring(
        &store,
        |w| {
            w.put(t, b"mine", b"m")?;
            w.require_value(t, b"mine", b"m")?;
            w.delete(t, b"held")?;
            w.require_absent(t, b"held")
        },
        |_| {},
    );
    assert_eq!(
        own,
        Ok(()),
        "the transaction's own changes answer for their keys"
    );
    assert_eq!(read(&store, t, b"mine").as_deref(), Some(&b"m"[..]));
    assert_eq!(read(&store, t, b"held"), None);

    // A committed change made after the writer opened and before the precondition was stated
    // is what the precondition sees (no stale answer from an earlier read).
    commit_puts(&store, t, &[(b"late", b"l1")]);
    let late = commit_requiring(&store, |w| w.require_absent(t, b"late"), put(b"late2"));
    assert!(late.is_err(), "a key committed earlier is present");
    assert_eq!(read(&store, t, b"late2"), None);
}

/// For a backend whose writer does not exclude other clients until it commits (PostgreSQL,
/// Redis): another client that changes a required key after `require_absent`/`require_value`
/// and before `commit` makes the commit fail with `PreconditionFailed` and apply nothing, so
/// the check is made with the commit. `change(table, key, value)` writes as that other client.
pub fn preconditions_against_another_client<S: Store>(
    store: &S,
    mut change: impl FnMut(&str, &[u8], &[u8]),
) {
    let t = main_table(store);
    let log = store.table("change_log").expect("change_log");
    commit_puts(store, log, &[(b"entry", b"e1")]);
    commit_puts(store, t, &[(b"kept", b"k")]);
    for (required, changed_table, changed_key) in [
        ("absent", "main", &b"node"[..]),
        ("value", "change_log", b"entry"),
    ] {
        let mut w = store.writer().expect("writer");
        match required {
            "absent" => w.require_absent(t, b"node").expect("absent so far"),
            _ => w
                .require_value(log, b"entry", b"e1")
                .expect("holds e1 so far"),
        }
        w.put(t, b"written", b"w").expect("put");
        w.delete(t, b"kept").expect("delete");
        change(changed_table, changed_key, b"changed meanwhile");
        match w.commit() {
            Err(KvError::PreconditionFailed { .. }) => {}
            other => panic!("expected PreconditionFailed ({required}), got {other:?}"),
        }
        assert_eq!(read(store, t, b"written"), None, "nothing applied");
        assert_eq!(read(store, t, b"kept").as_deref(), Some(&b"k"[..]));
    }
}

/// The `case`th of [`preconditions`]' failing requirements: a present key required absent, a
/// key required to hold other bytes, an absent key required to hold bytes, and a failure after
/// a precondition that holds.
fn failing_requirement<W: WriteTx>(case: usize, w: &mut W, t: Table, log: Table) -> KvResult<()> {
    match case {
        0 => w.require_absent(t, b"held"),
        1 => w.require_value(t, b"held", b"v2"),
        2 => w.require_value(t, b"missing", b"v1"),
        _ => {
            w.require_absent(t, b"fresh2")?;
            w.require_value(log, b"entry", b"e2")
        }
    }
}

/// Values put and committed read back, from readers and from the next writer.
pub fn round_trip<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    commit_puts(&store, t, &[(b"alpha", b"1"), (b"beta", b"22")]);
    assert_eq!(read(&store, t, b"alpha").as_deref(), Some(&b"1"[..]));
    assert_eq!(read(&store, t, b"beta").as_deref(), Some(&b"22"[..]));
    assert_eq!(read(&store, t, b"gamma"), None);
    let w = store.writer().expect("writer");
    assert_eq!(w.get(t, b"beta").expect("get").as_deref(), Some(&b"22"[..]));
    assert!(w.contains(t, b"alpha").expect("contains"));
    assert!(!w.contains(t, b"gamma").expect("contains"));
    let r = store.reader().expect("reader");
    let len = r.get_with(t, b"beta", |v| v.len()).expect("get_with");
    assert_eq!(len, Some(2));
}

/// `insert` refuses an existing key with `DuplicateEntry`, and a failed transaction applies nothing.
pub fn duplicate_detection<S: Store>(open: &dyn Fn() -> KvResult<S>, caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    // Within one transaction the writer always knows.
    let mut w = store.writer().expect("writer");
    w.insert(t, b"k", b"1").expect("first insert");
    match w.insert(t, b"k", b"2") {
        Err(KvError::DuplicateEntry { table, key }) => {
            assert_eq!(table, "main");
            assert_eq!(key, hex_of(b"k"));
        }
        other => panic!("expected DuplicateEntry, got {other:?}"),
    }
    w.commit().expect("commit after refused duplicate");
    assert_eq!(read(&store, t, b"k").as_deref(), Some(&b"1"[..]));

    // Against committed data: at insert, or (deferred backends) at commit, and then atomically.
    let mut w = store.writer().expect("writer");
    w.put(t, b"other", b"x").expect("put");
    let outcome = match w.insert(t, b"k", b"3") {
        Err(e) => {
            drop(w);
            Err(e)
        }
        Ok(()) => {
            assert!(
                caps.deferred_duplicate_check,
                "insert of a committed key succeeded on a backend that checks eagerly"
            );
            w.commit()
        }
    };
    assert!(
        matches!(outcome, Err(KvError::DuplicateEntry { .. })),
        "expected DuplicateEntry, got {outcome:?}"
    );
    assert_eq!(read(&store, t, b"k").as_deref(), Some(&b"1"[..]));
    assert_eq!(
        read(&store, t, b"other"),
        None,
        "failed transaction leaked a put"
    );

    // Insert after delete in the same transaction is allowed.
    let mut w = store.writer().expect("writer");
    w.delete(t, b"k").expect("delete");
    w.insert(t, b"k", b"4").expect("insert after delete");
    w.commit().expect("commit");
    assert_eq!(read(&store, t, b"k").as_deref(), Some(&b"4"[..]));
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `put` replaces values, in the same transaction and across transactions.
pub fn overwrite<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    commit_puts(&store, t, &[(b"k", b"old")]);
    let mut w = store.writer().expect("writer");
    w.put(t, b"k", b"new").expect("put");
    assert_eq!(w.get(t, b"k").expect("get").as_deref(), Some(&b"new"[..]));
    w.put(t, b"k", b"newer").expect("put");
    w.commit().expect("commit");
    assert_eq!(read(&store, t, b"k").as_deref(), Some(&b"newer"[..]));
    assert_eq!(store.reader().expect("reader").count(t).expect("count"), 1);
}

/// Deleting a present key removes it; deleting an absent key is a no-op.
pub fn delete_present_and_absent<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    commit_puts(&store, t, &[(b"a", b"1"), (b"b", b"2")]);
    let mut w = store.writer().expect("writer");
    w.delete(t, b"a").expect("delete present");
    w.delete(t, b"zzz").expect("delete absent");
    assert_eq!(w.get(t, b"a").expect("get"), None);
    assert_eq!(w.count(t).expect("count"), 1);
    w.put(t, b"c", b"3").expect("put");
    w.delete(t, b"c").expect("delete pending");
    w.commit().expect("commit");
    let r = store.reader().expect("reader");
    assert_eq!(r.get(t, b"a").expect("get"), None);
    assert_eq!(r.get(t, b"c").expect("get"), None);
    assert_eq!(r.get(t, b"b").expect("get").as_deref(), Some(&b"2"[..]));
    assert_eq!(r.count(t).expect("count"), 1);
}

/// `get_many_with` answers as `get` would for each key, repeated and absent keys included, on a
/// reader (committed values) and on the writer (its pending puts and deletes over them).
pub fn get_many_matches_get<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    commit_puts(&store, t, &[(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]);
    let keys: [&[u8]; 6] = [b"c", b"zz", b"a", b"b", b"a", b"d"];
    type Visit<'a> = &'a mut dyn FnMut(usize, &[u8]);
    let many = |rx: &dyn Fn(Visit<'_>)| {
        let mut got: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
        rx(&mut |i, v| {
            assert!(got[i].is_none(), "key {i} answered twice");
            got[i] = Some(v.to_vec());
        });
        got
    };
    let r = store.reader().expect("reader");
    let got = many(&|f| r.get_many_with(t, &keys, f).expect("get_many_with"));
    let want: Vec<Option<Vec<u8>>> = keys.iter().map(|k| r.get(t, k).expect("get")).collect();
    assert_eq!(got, want);
    assert_eq!(want[0].as_deref(), Some(&b"3"[..]));
    drop(r);
    let mut w = store.writer().expect("writer");
    w.put(t, b"d", b"4").expect("put");
    w.delete(t, b"b").expect("delete");
    w.put(t, b"a", b"5").expect("put");
    let got = many(&|f| w.get_many_with(t, &keys, f).expect("get_many_with"));
    let want: Vec<Option<Vec<u8>>> = keys.iter().map(|k| w.get(t, k).expect("get")).collect();
    assert_eq!(got, want);
    assert_eq!(want[3], None);
    assert_eq!(want[5].as_deref(), Some(&b"4"[..]));
    w.commit().expect("commit");
    let none: [&[u8]; 0] = [];
    let r = store.reader().expect("reader");
    r.get_many_with(t, &none, |_, _| panic!("no keys, no answers"))
        .expect("empty get_many_with");
}

/// `get_many_across` answers as `get` would for each key of each ask (tables mixed, a table
/// asked twice, an empty ask, repeated and absent keys), on a reader and on the writer (its
/// pending changes over the committed data); a commit writing to several tables and kinds
/// (what a PostgreSQL store sends as one statement) lands whole.
pub fn get_many_across_matches_get<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let main = main_table(&store);
    let log = store.table("change_log").expect("change_log");
    commit_puts(&store, main, &[(b"a", b"1"), (b"b", b"2")]);
    let mut w = store.writer().expect("writer");
    w.put(log, b"a", b"log-a").expect("put");
    w.put(log, b"x", b"log-x").expect("put");
    w.delete(main, b"b").expect("delete");
    w.put(main, b"c", b"3").expect("put");
    w.commit().expect("commit");
    let main_keys: [&[u8]; 4] = [b"a", b"b", b"c", b"a"];
    let log_keys: [&[u8]; 3] = [b"x", b"zz", b"a"];
    let none: [&[u8]; 0] = [];
    let asks = [
        (log, &log_keys[..]),
        (main, &main_keys[..]),
        (main, &none[..]),
        (log, &log_keys[..1]),
    ];
    type Got = Vec<Vec<Option<Vec<u8>>>>;
    type Visit<'a> = &'a mut dyn FnMut(usize, usize, &[u8]);
    let across = |rx: &dyn Fn(Visit<'_>)| -> Got {
        let mut got: Got = asks.iter().map(|(_, k)| vec![None; k.len()]).collect();
        rx(&mut |a, i, v| {
            assert!(got[a][i].is_none(), "ask {a} key {i} answered twice");
            got[a][i] = Some(v.to_vec());
        });
        got
    };
    fn want<R: ReadTx>(rx: &R, asks: &[(Table, &[&[u8]])]) -> Vec<Vec<Option<Vec<u8>>>> {
        asks.iter()
            .map(|(t, keys)| {
                keys.iter()
                    .map(|k| {
                        let got = rx.get(*t, k).expect("get");
                        // `contains` agrees with `get` (backends answer it without the value).
                        assert_eq!(rx.contains(*t, k).expect("contains"), got.is_some());
                        got
                    })
                    .collect()
            })
            .collect()
    }
    let r = store.reader().expect("reader");
    let got = across(&|f| r.get_many_across(&asks, f).expect("get_many_across"));
    assert_eq!(got, want(&r, &asks));
    assert_eq!(got[0][0].as_deref(), Some(&b"log-x"[..]));
    assert_eq!(
        got[1],
        [
            Some(b"1".to_vec()),
            None,
            Some(b"3".to_vec()),
            Some(b"1".to_vec())
        ]
    );
    drop(r);
    let mut w = store.writer().expect("writer");
    w.delete(log, b"x").expect("delete");
    w.put(main, b"b", b"4").expect("put");
    let got = across(&|f| w.get_many_across(&asks, f).expect("get_many_across"));
    assert_eq!(got, want(&w, &asks));
    assert_eq!(got[0][0], None);
    assert_eq!(got[1][1].as_deref(), Some(&b"4"[..]));
    w.commit().expect("commit");
}

/// Dropping a writer without committing discards its changes.
pub fn rollback_on_drop<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    commit_puts(&store, t, &[(b"keep", b"1")]);
    {
        let mut w = store.writer().expect("writer");
        w.put(t, b"lost", b"x").expect("put");
        w.put(t, b"keep", b"changed").expect("put");
        w.delete(t, b"keep").expect("delete");
    }
    assert_eq!(read(&store, t, b"lost"), None);
    assert_eq!(read(&store, t, b"keep").as_deref(), Some(&b"1"[..]));
    // The store stays usable for the next writer.
    commit_puts(&store, t, &[(b"after", b"2")]);
    assert_eq!(store.reader().expect("reader").count(t).expect("count"), 2);
}

/// Readers never see uncommitted changes; readers opened after a commit see all of it.
pub fn commit_visibility<S: Store>(open: &dyn Fn() -> KvResult<S>, caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    let log = store.table("change_log").expect("change_log");
    let before = store.reader().expect("reader");
    let mut w = store.writer().expect("writer");
    w.put(t, b"k", b"v").expect("put");
    w.put(log, b"k", b"in another table").expect("put");
    assert_eq!(
        read(&store, t, b"k"),
        None,
        "uncommitted put visible to a reader"
    );
    w.commit().expect("commit");
    let after = store.reader().expect("reader");
    assert_eq!(after.get(t, b"k").expect("get").as_deref(), Some(&b"v"[..]));
    assert_eq!(
        after.get(log, b"k").expect("get").as_deref(),
        Some(&b"in another table"[..])
    );
    let seen_by_old = before.get(t, b"k").expect("get");
    if caps.snapshot_reads {
        assert_eq!(seen_by_old, None, "snapshot reader saw a later commit");
    } else {
        assert_eq!(seen_by_old.as_deref(), Some(&b"v"[..]));
    }
}

/// Committed data survives closing and reopening; uncommitted data does not.
pub fn reopen_keeps_committed<S: Store>(open: &dyn Fn() -> KvResult<S>, caps: Capabilities) {
    if !caps.persistent {
        return;
    }
    {
        let store = open().expect("open store");
        let t = main_table(&store);
        commit_puts(&store, t, &[(b"durable", b"yes"), (&[0u8, 1, 2], b"bin")]);
        let mut w = store.writer().expect("writer");
        w.put(t, b"uncommitted", b"no").expect("put");
        drop(w);
    }
    let store = open().expect("reopen store");
    let t = main_table(&store);
    let r = store.reader().expect("reader");
    assert_eq!(
        r.get(t, b"durable").expect("get").as_deref(),
        Some(&b"yes"[..])
    );
    assert_eq!(
        r.get(t, &[0, 1, 2]).expect("get").as_deref(),
        Some(&b"bin"[..])
    );
    assert_eq!(r.get(t, b"uncommitted").expect("get"), None);
    assert_eq!(r.count(t).expect("count"), 2);
}

/// A reader's view while another thread commits: a snapshot where promised, else read-committed.
pub fn snapshot_under_concurrent_commit<S: Store>(
    open: &dyn Fn() -> KvResult<S>,
    caps: Capabilities,
) {
    let store = open().expect("open store");
    let t = main_table(&store);
    commit_puts(&store, t, &[(b"k", b"v1")]);
    let reader = store.reader().expect("reader");
    assert_eq!(
        reader.get(t, b"k").expect("get").as_deref(),
        Some(&b"v1"[..])
    );
    std::thread::scope(|s| {
        s.spawn(|| commit_puts(&store, t, &[(b"k", b"v2"), (b"new", b"n")]))
            .join()
            .expect("committing thread");
    });
    let seen = reader.get(t, b"k").expect("get");
    if caps.snapshot_reads {
        assert_eq!(seen.as_deref(), Some(&b"v1"[..]));
        assert_eq!(reader.get(t, b"new").expect("get"), None);
        assert_eq!(reader.count(t).expect("count"), 1);
    } else {
        assert_eq!(seen.as_deref(), Some(&b"v2"[..]));
    }
    drop(reader);
    assert_eq!(read(&store, t, b"k").as_deref(), Some(&b"v2"[..]));
}

/// The empty value and a 1 MiB value round-trip exactly.
pub fn empty_and_large_values<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    let big: Vec<u8> = (0..(1usize << 20)).map(|i| (i * 31 % 251) as u8).collect();
    commit_puts(&store, t, &[(b"empty", b""), (b"big", &big)]);
    let r = store.reader().expect("reader");
    assert_eq!(r.get(t, b"empty").expect("get").as_deref(), Some(&b""[..]));
    assert!(r.contains(t, b"empty").expect("contains"));
    assert_eq!(
        r.get(t, b"big").expect("get").as_deref(),
        Some(big.as_slice())
    );
}

/// Keys are arbitrary bytes (NUL, 0xff, invalid UTF-8) and order bytewise.
pub fn binary_keys<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    let keys: [&[u8]; 6] = [
        &[0x00],
        &[0x00, 0x00],
        &[0x01, 0xff],
        &[0x7f],
        &[0x80],
        &[0xff, 0xfe, 0x00],
    ];
    let mut w = store.writer().expect("writer");
    for (i, k) in keys.iter().rev().enumerate() {
        w.insert(t, k, &[i as u8]).expect("insert");
    }
    w.commit().expect("commit");
    let r = store.reader().expect("reader");
    for k in keys {
        assert!(r.contains(t, k).expect("contains"), "missing key {k:?}");
    }
    let order: Vec<Vec<u8>> = r
        .collect(t, &KeyRange::all())
        .expect("scan")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let expected: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
    assert_eq!(order, expected, "scan is not in byte order");
}

/// `count` and ordered iteration over all, a prefix, a range, with early stop, pending changes
/// included for the writer; tables stay separate.
pub fn counts_and_ordered_iteration<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let t = main_table(&store);
    let log = store.table("duplicate_log").expect("duplicate_log");
    let keys = ["ab00", "ab01", "ab0a", "ac", "b", "a"];
    let mut w = store.writer().expect("writer");
    for k in keys {
        w.put(t, k.as_bytes(), k.to_uppercase().as_bytes())
            .expect("put");
    }
    w.put(log, b"ab99", b"elsewhere").expect("put");
    w.commit().expect("commit");

    let r = store.reader().expect("reader");
    assert_eq!(r.count(t).expect("count"), 6);
    assert_eq!(r.count(log).expect("count"), 1);
    let names = |range: &KeyRange| -> Vec<String> {
        r.collect(t, range)
            .expect("scan")
            .into_iter()
            .map(|(k, v)| {
                assert_eq!(v, k.to_ascii_uppercase(), "value does not match key");
                String::from_utf8(k).expect("ascii key")
            })
            .collect()
    };
    assert_eq!(
        names(&KeyRange::all()),
        ["a", "ab00", "ab01", "ab0a", "ac", "b"]
    );
    assert_eq!(names(&KeyRange::prefix(b"ab")), ["ab00", "ab01", "ab0a"]);
    assert_eq!(
        names(&KeyRange::between(b"ab01", b"b")),
        ["ab01", "ab0a", "ac"]
    );
    assert_eq!(names(&KeyRange::from(b"ac")), ["ac", "b"]);
    assert!(names(&KeyRange::prefix(b"zz")).is_empty());
    let mut first_two = Vec::new();
    r.scan(t, &KeyRange::all(), |k, _| {
        first_two.push(k.to_vec());
        if first_two.len() == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .expect("scan");
    assert_eq!(first_two, [b"a".to_vec(), b"ab00".to_vec()]);
    drop(r);

    // The writer's iteration merges its pending puts and deletes.
    let mut w = store.writer().expect("writer");
    w.delete(t, b"ab01").expect("delete");
    w.put(t, b"ab02", b"AB02").expect("put");
    w.put(t, b"ab00", b"AB00").expect("put");
    let pending: Vec<Vec<u8>> = w
        .collect(t, &KeyRange::prefix(b"ab"))
        .expect("scan")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        pending,
        [b"ab00".to_vec(), b"ab02".to_vec(), b"ab0a".to_vec()]
    );
    assert_eq!(w.count(t).expect("count"), 6);
}

/// Several reader threads check an invariant while one writer commits; a second writer waits.
pub fn readers_while_writing<S: Store>(open: &dyn Fn() -> KvResult<S>, caps: Capabilities) {
    const COMMITS: u64 = 60;
    const READERS: usize = 3;
    let store = open().expect("open store");
    let t = main_table(&store);
    let log = store.table("change_log").expect("change_log");
    commit_puts(
        &store,
        t,
        &[
            (b"left", &0u64.to_be_bytes()),
            (b"right", &0u64.to_be_bytes()),
        ],
    );
    let done = AtomicBool::new(false);
    let reads = AtomicU64::new(0);
    let start = Barrier::new(READERS + 1);
    let decode = |v: Option<Vec<u8>>| -> u64 {
        let bytes: [u8; 8] = v.expect("counter present").try_into().expect("8 bytes");
        u64::from_be_bytes(bytes)
    };
    std::thread::scope(|s| {
        for _ in 0..READERS {
            s.spawn(|| {
                start.wait();
                let mut last = 0;
                while !done.load(Ordering::Acquire) {
                    let r = store.reader().expect("reader");
                    let left = decode(r.get(t, b"left").expect("get"));
                    let right = decode(r.get(t, b"right").expect("get"));
                    if caps.snapshot_reads {
                        assert_eq!(left, right, "reader saw half a commit");
                    } else {
                        assert!(right + 1 >= left && left >= last, "counters went backwards");
                    }
                    last = left;
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        start.wait();
        // Keep committing until the readers have had a chance to read (a fast backend can
        // otherwise finish before any reader thread is scheduled).
        let mut i = 0;
        while i < COMMITS || (reads.load(Ordering::Relaxed) < READERS as u64 && i < 100 * COMMITS) {
            i += 1;
            let mut w = store.writer().expect("writer");
            w.put(t, b"left", &i.to_be_bytes()).expect("put");
            w.put(log, &i.to_be_bytes(), b"entry").expect("put");
            w.put(t, b"right", &i.to_be_bytes()).expect("put");
            w.commit().expect("commit");
        }
        done.store(true, Ordering::Release);
    });
    assert!(reads.load(Ordering::Relaxed) > 0, "no reads happened");
    let commits = decode(read(&store, t, b"left"));
    assert!(commits >= COMMITS, "only {commits} commits landed");
    assert_eq!(
        store.reader().expect("reader").count(log).expect("count"),
        commits
    );

    // Only one writer at a time: a second one waits for the first to finish.
    let first_done = AtomicBool::new(false);
    let w = store.writer().expect("writer");
    std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            let w2 = store.writer().expect("second writer");
            assert!(
                first_done.load(Ordering::Acquire),
                "second writer did not wait"
            );
            drop(w2);
        });
        std::thread::sleep(Duration::from_millis(100));
        first_done.store(true, Ordering::Release);
        w.commit().expect("commit");
        waiter.join().expect("second writer thread");
    });
}

/// Unknown table names are errors that list the declared ones.
pub fn unknown_table<S: Store>(open: &dyn Fn() -> KvResult<S>, _caps: Capabilities) {
    let store = open().expect("open store");
    let err = store.table("nope").expect_err("unknown table accepted");
    let msg = err.to_string();
    assert!(msg.contains("nope") && msg.contains("change_log"), "{msg}");
}

/// Writes one `#[test]` per conformance case for a backend.
///
/// `$open` is an expression of type `impl Fn(&Path) -> KvResult<S>`; each test gets its own
/// temporary directory, and the opener is called with it every time the case (re)opens.
///
/// `conformance_tests!(in $base; $caps, $open)` creates each case's directory inside `$base`
/// instead of the system temp dir (to run the suite on a given filesystem). `$base` is
/// evaluated at the start of each test, so it may also `return` early to skip the test.
#[macro_export]
macro_rules! conformance_tests {
    ($caps:expr, $open:expr) => {
        $crate::conformance_tests!(@all (::tempfile::tempdir()), $caps, $open);
    };
    (in $base:expr; $caps:expr, $open:expr) => {
        $crate::conformance_tests!(@all (::tempfile::Builder::new().tempdir_in($base)), $caps, $open);
    };
    (@all $mkdir:expr, $caps:expr, $open:expr) => {
        $crate::conformance_tests!(@cases $mkdir, $caps, $open;
            round_trip duplicate_detection overwrite delete_present_and_absent rollback_on_drop
            commit_visibility reopen_keeps_committed snapshot_under_concurrent_commit
            empty_and_large_values binary_keys counts_and_ordered_iteration
            readers_while_writing unknown_table get_many_matches_get get_many_across_matches_get
            preconditions);
    };
    (@cases $mkdir:expr, $caps:expr, $open:expr; $($case:ident)*) => {
        $(
            #[test]
            fn $case() {
                let dir = $mkdir.expect("temp dir");
                let path = dir.path().to_path_buf();
                let opener = $open;
                $crate::$case(&|| opener(&path), $caps);
            }
        )*
    };
}
