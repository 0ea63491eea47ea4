//! Change logs and pruning: Transact's scenarios, then a property over random histories.

mod common;

use std::collections::BTreeMap;

use common::{apply, batch, set, Model};
use proptest::prelude::*;
use triebench_kv::btree::BTreeStore;
use triebench_kv::{ReadTx, Store};
use triebench_merkle::{MerkleTrie, StateChange, EMPTY_ROOT, TABLES};

fn raw(root: &str) -> [u8; 32] {
    hex::decode(root).unwrap().try_into().unwrap()
}

fn node_exists(store: &BTreeStore, hash: &str) -> bool {
    let main = store.table("main").unwrap();
    store.reader().unwrap().contains(main, &raw(hash)).unwrap()
}

fn log(store: &BTreeStore, root: &str) -> triebench_merkle::ChangeLogEntry {
    MerkleTrie::change_log(store, root)
        .unwrap()
        .expect("a change log entry")
}

fn three_siblings() -> Vec<StateChange> {
    vec![
        set("ab0000", b"0001"),
        set("ab0a01", b"0002"),
        set("abff00", b"0003"),
    ]
}

#[test]
fn root_advance_records_parent_and_additions() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    assert!(MerkleTrie::change_log(&store, EMPTY_ROOT)
        .unwrap()
        .is_none());
    let root = trie.commit(&[set("abcd", b"data_value")]).unwrap();
    let entry = log(&store, &root);
    assert_eq!(entry.parent, raw(EMPTY_ROOT));
    assert_eq!(entry.additions.len(), 3);
    assert!(entry.successors.is_empty());
    // The empty root never gets an entry or successors.
    assert!(MerkleTrie::change_log(&store, EMPTY_ROOT)
        .unwrap()
        .is_none());
}

#[test]
fn pruning_parent() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let parent = trie.commit(&three_siblings()).unwrap();
    trie.set_root(&parent).unwrap();
    assert!(log(&store, &parent).successors.is_empty());
    let successor = trie.commit(&[set("ab0000", b"test")]).unwrap();
    let parent_log = log(&store, &parent);
    assert_eq!(parent_log.successors.len(), 1);
    assert_eq!(parent_log.successors[0].root, raw(&successor));
    assert_eq!(log(&store, &successor).parent, raw(&parent));

    let deletions = parent_log.successors[0].deletions.clone();
    // Leaf, ab00, ab (the old root is added at prune time).
    assert_eq!(deletions.len(), 3);
    let removed = MerkleTrie::prune(&store, &parent).unwrap();
    assert_eq!(removed.len(), deletions.len() + 1);
    for hash in &deletions {
        assert!(!node_exists(&store, &hex::encode(hash)));
    }
    assert!(MerkleTrie::change_log(&store, &parent).unwrap().is_none());
    assert!(MerkleTrie::at_root(&store, &parent).is_err());
    let after = MerkleTrie::at_root(&store, &successor).unwrap();
    assert_eq!(after.get("ab0000").unwrap(), Some(b"test".to_vec()));
    assert_eq!(after.get("abff00").unwrap(), Some(b"0003".to_vec()));
}

#[test]
fn pruning_successors() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let parent = trie.commit(&three_siblings()).unwrap();
    trie.set_root(&parent).unwrap();
    let left = trie.commit(&[set("ab0000", b"left")]).unwrap();
    let right = trie.commit(&[set("ab0a01", b"right")]).unwrap();
    let roots: Vec<[u8; 32]> = log(&store, &parent)
        .successors
        .iter()
        .map(|s| s.root)
        .collect();
    assert_eq!(roots, [raw(&left), raw(&right)]);

    // A root with two successors is kept.
    assert!(MerkleTrie::prune(&store, &parent).unwrap().is_empty());
    assert!(MerkleTrie::change_log(&store, &parent).unwrap().is_some());

    let left_log = log(&store, &left);
    let removed = MerkleTrie::prune(&store, &left).unwrap();
    assert_eq!(removed.len(), left_log.additions.len());
    let roots: Vec<[u8; 32]> = log(&store, &parent)
        .successors
        .iter()
        .map(|s| s.root)
        .collect();
    assert_eq!(roots, [raw(&right)]);
    assert!(MerkleTrie::at_root(&store, &left).is_err());
    assert!(MerkleTrie::change_log(&store, &left).unwrap().is_none());
    let p = MerkleTrie::at_root(&store, &parent).unwrap();
    assert_eq!(p.get("ab0000").unwrap(), Some(b"0001".to_vec()));
    let r = MerkleTrie::at_root(&store, &right).unwrap();
    assert_eq!(r.get("ab0a01").unwrap(), Some(b"right".to_vec()));
    // Pruning again is a no-op.
    assert!(MerkleTrie::prune(&store, &left).unwrap().is_empty());
}

fn middle_and_last(store: &BTreeStore) -> (String, String, String) {
    let mut trie = MerkleTrie::new(store).unwrap();
    let parent = trie.commit(&three_siblings()).unwrap();
    trie.set_root(&parent).unwrap();
    let middle = trie
        .commit(&[set("ab0000", b"change0"), set("ab0001", b"change1")])
        .unwrap();
    trie.set_root(&middle).unwrap();
    // Set the value back: the leaf is a duplicate of the parent's.
    let last = trie.commit(&[set("ab0000", b"0001")]).unwrap();
    (parent, middle, last)
}

#[test]
fn pruning_duplicate_leaves() {
    let store = BTreeStore::open(TABLES).unwrap();
    let (parent, _middle, last) = middle_and_last(&store);
    let deletions = log(&store, &parent).successors[0].deletions.len();
    // The duplicate leaf is only dereferenced; the parent's root node is deleted.
    assert_eq!(MerkleTrie::prune(&store, &parent).unwrap().len(), deletions);
    let t = MerkleTrie::at_root(&store, &last).unwrap();
    assert_eq!(t.get("ab0000").unwrap(), Some(b"0001".to_vec()));
}

#[test]
fn pruning_successor_duplicate_leaves() {
    let store = BTreeStore::open(TABLES).unwrap();
    let (parent, _middle, last) = middle_and_last(&store);
    let additions = log(&store, &last).additions.len();
    assert_eq!(
        MerkleTrie::prune(&store, &last).unwrap().len(),
        additions - 1
    );
    let t = MerkleTrie::at_root(&store, &parent).unwrap();
    assert_eq!(t.get("ab0000").unwrap(), Some(b"0001".to_vec()));
}

#[test]
fn same_node_at_many_positions_is_counted() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    let changes: Vec<StateChange> = (0..5u8)
        .map(|i| set(&format!("{i:02x}"), b"same"))
        .collect();
    let root = trie.commit(&changes).unwrap();
    let dup = store.table("duplicate_log").unwrap();
    assert_eq!(store.reader().unwrap().count(dup).unwrap(), 1);
    let removed = MerkleTrie::prune(&store, &root).unwrap();
    assert_eq!(removed.len(), 2); // the root and the shared leaf, once
    assert_eq!(store.reader().unwrap().count(dup).unwrap(), 0);
    let main = store.table("main").unwrap();
    assert_eq!(store.reader().unwrap().count(main).unwrap(), 2); // the empty root, the layout marker
}

#[test]
fn pruning_out_of_order_is_a_no_op() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let a = trie.commit(&three_siblings()).unwrap();
    trie.set_root(&a).unwrap();
    let b = trie.commit(&[set("ab0000", b"b")]).unwrap();
    trie.set_root(&b).unwrap();
    let _c = trie.commit(&[set("ab0a01", b"c")]).unwrap();
    // `b` has one successor but its parent `a` is still live: kept.
    assert!(MerkleTrie::prune(&store, &b).unwrap().is_empty());
    let t = MerkleTrie::at_root(&store, &a).unwrap();
    assert_eq!(t.get("ab0a01").unwrap(), Some(b"0002".to_vec()));
    // Oldest first works.
    assert!(!MerkleTrie::prune(&store, &a).unwrap().is_empty());
    assert!(!MerkleTrie::prune(&store, &b).unwrap().is_empty());
}

#[derive(Debug, Clone)]
enum Op {
    /// Commit a batch on the n-th live root.
    Commit(prop::sample::Index, Vec<StateChange>),
    /// Prune the n-th known root.
    Prune(prop::sample::Index),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<prop::sample::Index>(), batch()).prop_map(|(i, b)| Op::Commit(i, b)),
        2 => any::<prop::sample::Index>().prop_map(Op::Prune),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// After any sequence of commits (forks included) and prunes, every root that was not
    /// pruned still reads every value it had.
    #[test]
    fn unpruned_roots_stay_readable(ops in proptest::collection::vec(op(), 1..30)) {
        let store = BTreeStore::open(TABLES).unwrap();
        MerkleTrie::new(&store).unwrap();
        // Live roots and their mappings, in order of first appearance.
        let mut live: BTreeMap<String, Model> = BTreeMap::new();
        live.insert(EMPTY_ROOT.to_string(), Model::new());
        let mut known: Vec<String> = vec![EMPTY_ROOT.to_string()];
        for op in ops {
            match op {
                Op::Commit(i, changes) => {
                    let roots: Vec<&String> = live.keys().collect();
                    let base = roots[i.index(roots.len())].clone();
                    let model = &live[&base];
                    let trie = MerkleTrie::at_root(&store, &base).unwrap();
                    let result = trie.commit(&changes);
                    match apply(model, &changes) {
                        Some(next) => {
                            let root = result.unwrap();
                            if let Some(existing) = live.get(&root) {
                                prop_assert_eq!(existing, &next);
                            }
                            if !known.contains(&root) {
                                known.push(root.clone());
                            }
                            live.insert(root, next);
                        }
                        None => prop_assert!(result.is_err()),
                    }
                }
                Op::Prune(i) => {
                    let root = known[i.index(known.len())].clone();
                    let had_entry = MerkleTrie::change_log(&store, &root).unwrap().is_some();
                    MerkleTrie::prune(&store, &root).unwrap();
                    let has_entry = MerkleTrie::change_log(&store, &root).unwrap().is_some();
                    if had_entry && !has_entry {
                        live.remove(&root);
                    }
                }
            }
            for (root, model) in &live {
                let trie = MerkleTrie::at_root(&store, root).unwrap();
                let leaves: Model = trie.leaves("").unwrap().into_iter().collect();
                prop_assert_eq!(&leaves, model, "root {}", root);
            }
        }
    }
}

#[test]
fn reaching_a_live_root_again_keeps_its_log() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let r = trie.commit(&three_siblings()).unwrap();
    trie.set_root(&r).unwrap();
    let s = trie.commit(&[set("ab0000", b"x")]).unwrap();
    trie.set_root(&s).unwrap();
    let before = log(&store, &r);
    // Setting the value back reaches `r` again: its entry (and successor `s`) is untouched but
    // for the count of commits that reached it again, which holds it through one prune.
    assert_eq!(trie.commit(&[set("ab0000", b"0001")]).unwrap(), r);
    let after = log(&store, &r);
    assert_eq!(after.reached_again, 1);
    assert_eq!(
        triebench_merkle::ChangeLogEntry {
            reached_again: 0,
            ..after
        },
        before
    );
    assert!(log(&store, &s).successors.is_empty());
}

#[test]
fn identical_subtrees_in_one_batch_are_counted() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    let changes: Vec<StateChange> = (0..6u8)
        .flat_map(|i| {
            [
                set(&format!("{i:02x}ab"), b"x"),
                set(&format!("{i:02x}cd"), b"y"),
            ]
        })
        .collect();
    let root = trie.commit(&changes).unwrap();
    MerkleTrie::prune(&store, &root).unwrap();
    let count = |t: &str| {
        store
            .reader()
            .unwrap()
            .count(store.table(t).unwrap())
            .unwrap()
    };
    assert_eq!(
        (count("main"), count("duplicate_log"), count("change_log")),
        (2, 0, 0),
        "the empty root and the layout marker"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Pruning every root, newest first, releases every node exactly: only the empty root is
    /// left, with no reference counts and no change logs; roots not yet pruned stay readable.
    /// A root that commits reached n times is pruned n times, and keeps its entry until the
    /// last of them.
    #[test]
    fn pruning_everything_newest_first_leaves_only_the_empty_root(
        commits in proptest::collection::vec((any::<prop::sample::Index>(), batch()), 1..20),
    ) {
        let store = BTreeStore::open(TABLES).unwrap();
        MerkleTrie::new(&store).unwrap();
        // Roots in order of first appearance, with their mappings and how often commits
        // returned them.
        let mut roots: Vec<(String, Model, usize)> =
            vec![(EMPTY_ROOT.to_string(), Model::new(), 1)];
        for (i, changes) in commits {
            let (base, model, _) = roots[i.index(roots.len())].clone();
            let result = MerkleTrie::at_root(&store, &base).unwrap().commit(&changes);
            if let Some(next) = apply(&model, &changes) {
                let root = result.unwrap();
                match roots.iter_mut().find(|(r, _, _)| *r == root) {
                    Some((_, _, reached)) => *reached += 1,
                    None => roots.push((root, next, 1)),
                }
            }
        }
        while roots.len() > 1 {
            let (root, _, reached) = roots.pop().unwrap();
            for _ in 1..reached {
                prop_assert!(MerkleTrie::prune(&store, &root).unwrap().is_empty());
                prop_assert!(MerkleTrie::change_log(&store, &root).unwrap().is_some());
                MerkleTrie::at_root(&store, &root).unwrap();
            }
            MerkleTrie::prune(&store, &root).unwrap();
            prop_assert!(MerkleTrie::change_log(&store, &root).unwrap().is_none());
            for (r, model, _) in &roots {
                let trie = MerkleTrie::at_root(&store, r).unwrap();
                let leaves: Model = trie.leaves("").unwrap().into_iter().collect();
                prop_assert_eq!(&leaves, model);
            }
        }
        let count = |t: &str| store.reader().unwrap().count(store.table(t).unwrap()).unwrap();
        // The empty root and the layout marker.
        prop_assert_eq!((count("main"), count("duplicate_log"), count("change_log")), (2, 0, 0));
    }
}
