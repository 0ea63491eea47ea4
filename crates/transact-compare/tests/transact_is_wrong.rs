//! Where Transact 0.4.7 is wrong, one test per known case. Each prints Transact's answer and
//! triebench's, asserts that triebench agrees with the reference model (the root is a function
//! of the final address -> value mapping) and that Transact does what is reported here. If a
//! Transact release fixes a case, its test fails and says so.
//!
//! `cargo test --manifest-path crates/transact-compare/Cargo.toml --test transact_is_wrong -- --nocapture`

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use triebench_kv::btree::BTreeStore;
use triebench_merkle::{reference, MerkleTrie, TABLES};
use triebench_transact::{Change, Implementation, OpenState};

/// Transact 0.4.7 over its in-memory database.
fn transact() -> (tempfile::TempDir, OpenState) {
    let dir = tempfile::tempdir().unwrap();
    let open = Implementation::V047Btree.open(dir.path()).unwrap();
    (dir, open)
}

/// Applies `commits` on triebench (from the empty trie); returns the final root.
fn ours(commits: &[Vec<Change>]) -> (BTreeStore, String) {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut root = MerkleTrie::new(&store).unwrap().root().to_string();
    for changes in commits {
        let trie = MerkleTrie::at_root(&store, &root).unwrap();
        let c: Vec<_> = changes.iter().map(Change::to_triebench).collect();
        root = trie.commit(&c).unwrap();
    }
    (store, root)
}

/// Applies `commits` on Transact; returns the final root.
fn theirs(open: &OpenState, commits: &[Vec<Change>]) -> String {
    let mut root = open.state.initial_root().to_string();
    for changes in commits {
        root = open.state.commit(&root, changes).unwrap();
    }
    root
}

fn model(pairs: &[(&str, &[u8])]) -> String {
    let m: BTreeMap<String, Vec<u8>> = pairs
        .iter()
        .map(|(a, v)| (a.to_string(), v.to_vec()))
        .collect();
    reference::root_of(&m).unwrap()
}

fn value(open: &OpenState, root: &str, address: &str) -> Option<Vec<u8>> {
    open.state
        .get(root, &[address.to_string()])
        .unwrap()
        .remove(address)
}

fn our_value(store: &BTreeStore, root: &str, address: &str) -> Option<Vec<u8>> {
    MerkleTrie::at_root(store, root)
        .unwrap()
        .get(address)
        .unwrap()
}

#[test]
fn setting_a_prefix_and_its_extension_in_one_commit_loses_the_prefix() {
    let commits = vec![vec![Change::set("ab", &[1]), Change::set("abcd", &[2])]];
    let (_dir, t) = transact();
    let their_root = theirs(&t, &commits);
    let (store, our_root) = ours(&commits);
    let expected = model(&[("ab", &[1]), ("abcd", &[2])]);
    println!("set ab=01 and abcd=02 in one commit");
    println!("  model     root {expected}");
    println!(
        "  triebench root {our_root}, ab = {:?}",
        our_value(&store, &our_root, "ab")
    );
    println!(
        "  transact  root {their_root}, ab = {:?}",
        value(&t, &their_root, "ab")
    );
    assert_eq!(our_root, expected);
    assert_eq!(our_value(&store, &our_root, "ab"), Some(vec![1]));
    assert_ne!(
        their_root, expected,
        "Transact now keeps `ab`: this case is fixed"
    );
}

#[test]
fn deleting_an_extension_also_drops_the_prefix_value() {
    let commits = vec![
        vec![Change::set("ab", &[1])],
        vec![Change::set("abcd", &[2])],
        vec![Change::delete("abcd")],
    ];
    let (_dir, t) = transact();
    let their_root = theirs(&t, &commits);
    let (store, our_root) = ours(&commits);
    let expected = model(&[("ab", &[1])]);
    println!("set ab, set abcd, delete abcd");
    println!("  model     root {expected}");
    println!(
        "  triebench root {our_root}, ab = {:?}",
        our_value(&store, &our_root, "ab")
    );
    println!(
        "  transact  root {their_root}, ab = {:?}",
        value(&t, &their_root, "ab")
    );
    assert_eq!(our_root, expected);
    assert_ne!(
        their_root, expected,
        "Transact now keeps `ab`: this case is fixed"
    );
}

#[test]
fn deleting_a_prefix_with_an_extension_is_a_no_op() {
    let commits = vec![
        vec![Change::set("ab", &[1])],
        vec![Change::set("abcd", &[2])],
        vec![Change::delete("ab")],
    ];
    let (_dir, t) = transact();
    let their_root = theirs(&t, &commits);
    let (store, our_root) = ours(&commits);
    let expected = model(&[("abcd", &[2])]);
    println!("set ab, set abcd, delete ab");
    println!("  model     root {expected}");
    println!(
        "  triebench root {our_root}, ab = {:?}",
        our_value(&store, &our_root, "ab")
    );
    println!(
        "  transact  root {their_root}, ab = {:?}",
        value(&t, &their_root, "ab")
    );
    assert_eq!(our_root, expected);
    assert_eq!(our_value(&store, &our_root, "ab"), None);
    assert_ne!(
        their_root, expected,
        "Transact now deletes `ab`: this case is fixed"
    );
}

#[test]
fn deleting_an_address_on_the_path_of_one_set_in_the_same_commit_panics() {
    let commits = vec![
        vec![Change::set("ab", &[1])],
        vec![Change::delete("ab"), Change::set("abcd", &[2])],
    ];
    let (store, our_root) = ours(&commits);
    let expected = model(&[("abcd", &[2])]);
    let (_dir, t) = transact();
    let first = theirs(&t, &commits[..1]);
    let outcome = catch_unwind(AssertUnwindSafe(|| t.state.commit(&first, &commits[1])));
    println!("set ab; then delete ab and set abcd in one commit");
    println!("  model     root {expected}");
    println!(
        "  triebench root {our_root}, abcd = {:?}",
        our_value(&store, &our_root, "abcd")
    );
    match &outcome {
        Err(_) => println!("  transact  panicked"),
        Ok(r) => println!("  transact  returned {r:?}"),
    }
    assert_eq!(our_root, expected);
    assert!(
        outcome.is_err(),
        "Transact no longer panics: this case is fixed"
    );
}

#[test]
fn deleting_a_one_token_address_leaves_the_root_unchanged() {
    let commits = vec![
        vec![Change::set("ab", &[1]), Change::set("cd", &[2])],
        vec![Change::delete("ab")],
    ];
    let (_dir, t) = transact();
    let before = theirs(&t, &commits[..1]);
    let their_root = t.state.commit(&before, &commits[1]).unwrap();
    let (store, our_root) = ours(&commits);
    let expected = model(&[("cd", &[2])]);
    println!("set ab and cd; delete ab");
    println!("  model     root {expected}");
    println!(
        "  triebench root {our_root}, ab = {:?}",
        our_value(&store, &our_root, "ab")
    );
    println!(
        "  transact  root {their_root} (before the delete: {before}), ab = {:?}",
        value(&t, &their_root, "ab")
    );
    assert_eq!(our_root, expected);
    assert_eq!(our_value(&store, &our_root, "ab"), None);
    assert_eq!(
        their_root, before,
        "Transact's delete now changes the root: this case is fixed"
    );
    assert_eq!(value(&t, &their_root, "ab"), Some(vec![1]));
}
