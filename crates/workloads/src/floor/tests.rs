//! The floor against the trie: the same tables after the same commits, the same writes per
//! commit, and the figures the module docs state.

use super::*;
use triebench_kv::btree::BTreeStore;
use triebench_kv::{KeyRange, ReadTx};
use triebench_merkle::{MerkleTrie, StateChange};

use crate::scenarios::{update_address, update_key};

/// `update`'s commit of its `i`th key.
fn update_change(i: usize) -> StateChange {
    StateChange::Set {
        address: update_address(i as u32),
        value: update_key(i as u32).into_bytes(),
    }
}

/// Every entry of every trie table, in table order.
fn contents(store: &BTreeStore) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
    let r = store.reader().expect("reader");
    triebench_merkle::TABLES
        .iter()
        .map(|name| {
            let table = store.table(name).expect("table");
            r.collect(table, &KeyRange::all()).expect("collect")
        })
        .collect()
}

#[test]
fn the_floor_leaves_the_tables_updates_commits_leave() {
    let floor_store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
    let mut floor = FloorCommits::new(&floor_store).expect("floor");
    floor.preload(&floor_store).expect("preload");
    for _ in 0..FLOOR_COMMITS {
        floor.prepare();
        floor.commit(&floor_store).expect("commit");
    }

    let trie_store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
    let mut trie = MerkleTrie::new(&trie_store).expect("trie");
    for i in 0..PRELOAD_COMMITS + FLOOR_COMMITS {
        let root = trie.commit(&[update_change(i)]).expect("commit");
        trie.set_root(&root).expect("set_root");
    }

    let (floor_tables, trie_tables) = (contents(&floor_store), contents(&trie_store));
    for ((name, f), t) in triebench_merkle::TABLES
        .iter()
        .zip(&floor_tables)
        .zip(&trie_tables)
    {
        // `update` writes no duplicate node: its duplicate log stays empty.
        assert_eq!(
            t.is_empty(),
            *name == "duplicate_log",
            "{name}: what the trie wrote"
        );
        assert_eq!(f.len(), t.len(), "{name}: entries");
        assert!(f == t, "{name}: same keys and values");
    }
}

#[test]
fn each_timed_commit_writes_the_root_the_trie_commits() {
    let floor_store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
    let mut floor = FloorCommits::new(&floor_store).expect("floor");
    floor.preload(&floor_store).expect("preload");
    let main = floor_store.table("main").expect("main");
    let log = floor_store.table("change_log").expect("change_log");

    // The trie, run beside the floor from the same start, on a store of its own.
    let trie_store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
    let mut trie = MerkleTrie::new(&trie_store).expect("trie");
    for i in 0..PRELOAD_COMMITS {
        let root = trie.commit(&[update_change(i)]).expect("commit");
        trie.set_root(&root).expect("set_root");
    }
    for i in PRELOAD_COMMITS..PRELOAD_COMMITS + FLOOR_COMMITS {
        let root = trie.commit(&[update_change(i)]).expect("commit");
        trie.set_root(&root).expect("set_root");
        let raw = hex::decode(&root).expect("hex root");

        let r = floor_store.reader().expect("reader");
        assert!(!r.contains(main, &raw).expect("get"), "{i}: not yet");
        drop(r);
        floor.prepare();
        floor.commit(&floor_store).expect("commit");
        let (f, t) = (
            floor_store.reader().expect("reader"),
            trie_store.reader().expect("reader"),
        );
        assert_eq!(
            f.get(main, &raw).expect("get"),
            t.get(main, &raw).expect("get"),
            "{i}: the root node, as the trie stored it"
        );
        assert!(f.contains(main, &raw).expect("get"), "{i}: root");
        assert_eq!(
            f.get(log, &raw).expect("get"),
            t.get(log, &raw).expect("get"),
            "{i}: the root's change-log entry"
        );
        for name in triebench_merkle::TABLES {
            let table = floor_store.table(name).expect("table");
            assert_eq!(
                f.count(table).expect("count"),
                t.count(table).expect("count"),
                "{i}: {name} entries"
            );
        }
    }
}

#[test]
fn a_commit_adds_its_nodes_and_root_entry_and_rewrites_its_parents() {
    let store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
    let mut floor = FloorCommits::new(&store).expect("floor");
    floor.preload(&store).expect("preload");
    let writes = recorded().expect("recorded");
    let main = store.table("main").expect("main");
    let log = store.table("change_log").expect("change_log");
    let parent = hex::decode(&writes.roots[PRELOAD_COMMITS - 1]).expect("hex");
    let root = hex::decode(&writes.roots[PRELOAD_COMMITS]).expect("hex");
    let new_nodes: usize = writes.commits[PRELOAD_COMMITS]
        .iter()
        .filter_map(|w| match w {
            Write::PutMany { table: 0, entries } => Some(entries.len()),
            _ => None,
        })
        .sum();
    assert!(new_nodes > 1, "a root and the nodes on its path");

    let r = store.reader().expect("reader");
    let (nodes, entries) = (r.count(main).expect("count"), r.count(log).expect("count"));
    let parent_before = r.get(log, &parent).expect("get").expect("preloaded");
    assert_eq!(r.get(log, &root).expect("get"), None);
    drop(r);
    floor.prepare();
    floor.commit(&store).expect("commit");
    let r = store.reader().expect("reader");
    assert_eq!(r.count(main).expect("count"), nodes + new_nodes as u64);
    // The new root's entry, and its additions stored apart (`triebench_merkle::changelog`).
    assert_eq!(r.count(log).expect("count"), entries + 2, "the new root's");
    assert!(r.get(log, &root).expect("get").is_some());
    let mut additions_key = root.clone();
    additions_key.push(0);
    assert!(r.get(log, &additions_key).expect("get").is_some());
    let parent_after = r.get(log, &parent).expect("get").expect("kept");
    assert_ne!(
        parent_before, parent_after,
        "the parent's entry is rewritten"
    );
}

#[test]
fn a_commit_without_a_recorded_one_selected_is_an_error() {
    let store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
    let mut floor = FloorCommits::new(&store).expect("floor");
    floor.preload(&store).expect("preload");
    assert!(floor.commit(&store).is_err(), "nothing prepared");
    for _ in 0..FLOOR_COMMITS {
        floor.prepare();
        floor.commit(&store).expect("commit");
    }
    floor.prepare();
    assert!(floor.commit(&store).is_err(), "past the recorded commits");
}

/// Per table of a recorded commit: the calls, the entries and the bytes of keys and values.
fn per_table(commit: &[Write], table: usize) -> (usize, usize, usize) {
    let of = |w: &&Write| match w {
        Write::Put { table: t, .. }
        | Write::PutMany { table: t, .. }
        | Write::Delete { table: t, .. } => *t == table,
    };
    let writes = commit.iter().filter(of);
    let (mut calls, mut entries, mut bytes) = (0, 0, 0);
    for w in writes {
        calls += 1;
        entries += w.entries();
        bytes += w.bytes();
    }
    (calls, entries, bytes)
}

#[test]
fn the_documented_figures_are_the_recorded_ones() {
    let writes = recorded().expect("recorded");
    let timed = &writes.commits[PRELOAD_COMMITS..PRELOAD_COMMITS + FLOOR_COMMITS];
    let n = timed.len() as f64;
    let index = |name: &str| {
        writes
            .table_names
            .iter()
            .position(|t| t == name)
            .expect("a trie table")
    };
    let (main, log, dup) = (index("main"), index("change_log"), index("duplicate_log"));
    let mean = |f: &dyn Fn(&[Write]) -> usize| timed.iter().map(|c| f(c)).sum::<usize>() as f64 / n;
    let nodes: Vec<usize> = timed.iter().map(|c| per_table(c, main).1).collect();
    let (fewest, most) = (
        nodes.iter().min().expect("300"),
        nodes.iter().max().expect("300"),
    );
    let root_bytes = |k: usize| {
        // `main` keys a node by its raw hash.
        let root = hex::decode(&writes.roots[PRELOAD_COMMITS + k]).expect("hex root");
        timed[k]
            .iter()
            .find_map(|w| match w {
                Write::PutMany { entries, .. } => entries
                    .iter()
                    .find(|(key, _)| *key == root)
                    .map(|(_, v)| v.len()),
                _ => None,
            })
            .expect("the root node is written")
    };
    let roots = (0..timed.len()).map(root_bytes).sum::<usize>() as f64 / n;
    let nodes = if fewest == most {
        format!("{fewest} new nodes each")
    } else {
        format!(
            "{:.1} new nodes ({fewest} to {most})",
            mean(&|c| per_table(c, main).1)
        )
    };
    let lines = [
        format!(
            "//! - `main`: one `put_many` of {nodes}, {:.1} KB of keys (raw 32-byte hashes) and",
            mean(&|c| per_table(c, main).2) / 1000.0,
        ),
        format!(
            "//!   encodings, the new root's encoding alone {:.1} KB;",
            roots / 1000.0
        ),
        format!(
            "//! - `change_log`: {:.1} `put`s (the new root's entry, its additions stored apart, and",
            mean(&|c| per_table(c, log).1),
        ),
        format!(
            "//!   its parent's entry, rewritten), {:.1} KB;",
            mean(&|c| per_table(c, log).2) / 1000.0,
        ),
        format!(
            "//! - `duplicate_log`: {:.1} writes (`update`'s nodes are all distinct).",
            mean(&|c| per_table(c, dup).1),
        ),
    ];
    let source = include_str!("mod.rs");
    let missing: Vec<&String> = lines
        .iter()
        .filter(|l| !source.contains(l.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "the module docs should say:\n{}",
        lines.join("\n")
    );
    assert!(
        timed.iter().all(|c| per_table(c, main).0 == 1),
        "one put_many each"
    );
}
