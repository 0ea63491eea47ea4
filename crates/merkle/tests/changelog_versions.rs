//! Change-log entries of every format version: a store written before version 3 (each entry's
//! additions inline) commits, prunes and answers as a store written now (additions apart).

mod common;

use common::{batch, contents, set};
use proptest::prelude::*;
use triebench_kv::btree::BTreeStore;
use triebench_kv::{ReadTx, Store, WriteTx};
use triebench_merkle::{MerkleError, MerkleTrie, StateChange, TABLES};

fn raw(root: &str) -> Vec<u8> {
    hex::decode(root).unwrap()
}

/// The key of `root`'s additions stored apart: the root and one zero byte.
fn additions_key(root: &str) -> Vec<u8> {
    let mut key = raw(root);
    key.push(0);
    key
}

/// Rewrites the entries of `roots` in `store` the way a store written before version 3 holds
/// them: each whole, its additions inline (versions 1 and 2), none apart.
fn inline_entries(store: &BTreeStore, roots: &[String]) {
    let entries: Vec<_> = roots
        .iter()
        .filter_map(|root| {
            MerkleTrie::change_log(store, root)
                .unwrap()
                .map(|entry| (root, entry))
        })
        .collect();
    let log = store.table("change_log").unwrap();
    let mut w = store.writer().unwrap();
    for (root, entry) in entries {
        let bytes = entry.to_bytes();
        assert!(matches!(bytes[0], 1 | 2));
        w.put(log, &raw(root), &bytes).unwrap();
        w.delete(log, &additions_key(root)).unwrap();
    }
    w.commit().unwrap();
}

/// Commits `changes` on the head in `store` and returns the new root, or `None` if the batch is
/// refused.
fn commit(store: &BTreeStore, roots: &[String], changes: &[StateChange]) -> Option<String> {
    let head = roots.last().unwrap();
    MerkleTrie::at_root(store, head)
        .unwrap()
        .commit(changes)
        .ok()
}

/// A block beside the next one: `changes` and one more set, on the same head.
fn beside(changes: &[StateChange], i: usize) -> Vec<StateChange> {
    let mut beside = changes.to_vec();
    beside.push(set("0a0a0a", &[i as u8]));
    beside
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The same history on two stores, one of them switched to the inline format part way: the
    /// same nodes, reference counts and change-log entries at every step after. Each step
    /// commits on the head (some steps first a block beside it, a fork tip pruned after the
    /// switch, whose additions are released), then prunes the root two commits back, as a node
    /// keeping its last two roots does.
    #[test]
    fn inline_entries_commit_and_prune_as_entries_apart(
        batches in proptest::collection::vec(batch(), 2..12),
        forks in proptest::collection::vec(any::<bool>(), 12),
        switch_at in 0usize..12,
    ) {
        let now = BTreeStore::open(TABLES).unwrap();
        let before = BTreeStore::open(TABLES).unwrap();
        let empty = MerkleTrie::new(&now).unwrap().root().to_string();
        MerkleTrie::new(&before).unwrap();
        let (mut now_roots, mut before_roots) = (vec![empty.clone()], vec![empty]);
        for (i, changes) in batches.iter().enumerate() {
            // A tip that is a live root (the batch beside changed nothing, or went back) is not
            // one to prune.
            let tip = forks[i]
                .then(|| commit(&now, &now_roots, &beside(changes, i)))
                .flatten()
                .filter(|tip| !now_roots.contains(tip));
            let before_tip = forks[i]
                .then(|| commit(&before, &before_roots, &beside(changes, i)))
                .flatten()
                .filter(|tip| !before_roots.contains(tip));
            prop_assert_eq!(&tip, &before_tip);
            if i == switch_at {
                let mut all = before_roots.clone();
                all.extend(before_tip.clone());
                inline_entries(&before, &all);
            }
            for (store, tip) in [(&now, &tip), (&before, &before_tip)] {
                if let Some(tip) = tip {
                    MerkleTrie::prune(store, tip).unwrap();
                }
            }
            let a = commit(&now, &now_roots, changes);
            let b = commit(&before, &before_roots, changes);
            prop_assert_eq!(&a, &b);
            // A refused batch adds no root and prunes nothing.
            for (store, roots, root) in [(&now, &mut now_roots, a), (&before, &mut before_roots, b)] {
                if let Some(root) = root {
                    roots.push(root);
                    if roots.len() >= 3 {
                        MerkleTrie::prune(store, &roots[roots.len() - 3]).unwrap();
                    }
                }
            }
            let (now_tables, before_tables) = (contents(&now), contents(&before));
            // `main` and `duplicate_log` byte for byte; the change log as entries.
            prop_assert_eq!(&now_tables[0], &before_tables[0]);
            prop_assert_eq!(&now_tables[2], &before_tables[2]);
            for root in &now_roots {
                prop_assert_eq!(
                    MerkleTrie::change_log(&now, root).unwrap(),
                    MerkleTrie::change_log(&before, root).unwrap()
                );
            }
        }
    }
}

/// A large commit's successor leaves the large commit's additions where they are: only the
/// entry, which lists successors, is rewritten.
#[test]
fn a_successor_leaves_its_parents_additions_alone() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    let changes: Vec<StateChange> = (0..200u32)
        .map(|i| set(&format!("{:06x}", i * 977), b"v"))
        .collect();
    let parent = trie.commit(&changes).unwrap();
    let log = store.table("change_log").unwrap();
    let stored = |key: &[u8]| store.reader().unwrap().get(log, key).unwrap();
    let (entry_before, additions) = (
        stored(&raw(&parent)).unwrap(),
        stored(&additions_key(&parent)),
    );
    let additions = additions.expect("the additions, apart");
    assert_eq!(entry_before[0], 3);
    assert!(
        additions.len() > 200 * 32,
        "every new node: {}",
        additions.len()
    );
    assert!(
        entry_before.len() < 64,
        "no additions inline: {}",
        entry_before.len()
    );

    let child = MerkleTrie::at_root(&store, &parent)
        .unwrap()
        .commit(&[set("000000", b"w")])
        .unwrap();
    let entry_after = stored(&raw(&parent)).unwrap();
    assert!(entry_after.len() > entry_before.len(), "a successor listed");
    assert!(
        entry_after.len() < 1024,
        "no additions inline: {}",
        entry_after.len()
    );
    assert_eq!(stored(&additions_key(&parent)), Some(additions));
    let entry = MerkleTrie::change_log(&store, &parent).unwrap().unwrap();
    assert_eq!(entry.successors.len(), 1);
    assert_eq!(hex::encode(entry.successors[0].root), child);
    assert_eq!(
        entry.additions.len() * 32,
        stored(&additions_key(&parent)).unwrap().len()
    );

    // Pruned, the parent leaves neither its entry nor its additions.
    assert!(!MerkleTrie::prune(&store, &parent).unwrap().is_empty());
    assert_eq!(stored(&raw(&parent)), None);
    assert_eq!(stored(&additions_key(&parent)), None);
}

/// A version-3 entry whose additions are missing or cut short is a typed error where they are
/// read: listing the entry, and pruning a root without successors (which releases them).
#[test]
fn missing_or_cut_additions_are_typed_errors() {
    for damaged in [None, Some(vec![7u8; 33])] {
        let store = BTreeStore::open(TABLES).unwrap();
        let root = MerkleTrie::new(&store)
            .unwrap()
            .commit(&[set("ab00", b"1"), set("cd00", b"2")])
            .unwrap();
        let log = store.table("change_log").unwrap();
        let mut w = store.writer().unwrap();
        match &damaged {
            None => w.delete(log, &additions_key(&root)).unwrap(),
            Some(bytes) => w.put(log, &additions_key(&root), bytes).unwrap(),
        }
        w.commit().unwrap();
        let listed = MerkleTrie::change_log(&store, &root).map(drop);
        let pruned = MerkleTrie::prune(&store, &root).map(drop);
        for (what, got) in [("listing", listed), ("pruning", pruned)] {
            assert!(
                matches!(got, Err(MerkleError::CorruptChangeLog { .. })),
                "{what} with additions {damaged:?}: {got:?}"
            );
        }
    }
}
