//! Damaged storage yields typed errors, never panics.

mod common;

use common::set;
use proptest::prelude::*;
use triebench_kv::btree::BTreeStore;
use triebench_kv::{Store, WriteTx};
use triebench_merkle::store_layout::node_key;
use triebench_merkle::{MerkleError, MerkleTrie, TABLES};

fn populated() -> (BTreeStore, String, Vec<String>) {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    let root = trie
        .commit(&[set("ab00", b"1"), set("ab01", b"2"), set("cd", b"3")])
        .unwrap();
    let entry = MerkleTrie::change_log(&store, &root).unwrap().unwrap();
    let nodes = entry.additions.iter().map(hex::encode).collect();
    (store, root, nodes)
}

fn overwrite(store: &BTreeStore, table: &str, key: &[u8], value: &[u8]) {
    let t = store.table(table).unwrap();
    let mut w = store.writer().unwrap();
    w.put(t, key, value).unwrap();
    w.commit().unwrap();
}

fn exercise(store: &BTreeStore, root: &str) -> Vec<Result<(), MerkleError>> {
    let Ok(trie) = MerkleTrie::at_root(store, root) else {
        return vec![];
    };
    vec![
        trie.get("ab00").map(drop),
        trie.get("cd").map(drop),
        trie.leaves("").map(drop),
        trie.compute(&[set("ab02", b"4")]).map(drop),
        trie.commit(&[set("ab02", b"4")]).map(drop),
        trie.commit(&[common::del("ab01")]).map(drop),
        MerkleTrie::prune(store, root).map(drop),
    ]
}

#[test]
fn corrupt_root_node_is_a_typed_error() {
    let (store, root, _) = populated();
    overwrite(&store, "main", &node_key(&root).unwrap(), b"garbage");
    let trie = MerkleTrie::at_root(&store, &root).unwrap();
    assert!(matches!(
        trie.get("ab00"),
        Err(MerkleError::CorruptNode { .. })
    ));
    assert!(matches!(
        trie.commit(&[set("ee", b"1")]),
        Err(MerkleError::CorruptNode { .. })
    ));
}

#[test]
fn missing_node_is_a_typed_error() {
    let (store, root, nodes) = populated();
    let main = store.table("main").unwrap();
    let mut w = store.writer().unwrap();
    // nodes[0] is the deepest addition, a leaf.
    w.delete(main, &node_key(&nodes[0]).unwrap()).unwrap();
    w.commit().unwrap();
    let trie = MerkleTrie::at_root(&store, &root).unwrap();
    assert!(matches!(
        trie.leaves(""),
        Err(MerkleError::MissingNode { .. })
    ));
}

#[test]
fn corrupt_change_log_and_refcount_are_typed_errors() {
    let (store, root, nodes) = populated();
    overwrite(
        &store,
        "duplicate_log",
        &hex::decode(&nodes[0]).unwrap(),
        b"abc",
    );
    overwrite(
        &store,
        "change_log",
        &hex::decode(&root).unwrap(),
        b"\x01abc",
    );
    assert!(matches!(
        MerkleTrie::change_log(&store, &root),
        Err(MerkleError::CorruptChangeLog { .. })
    ));
    assert!(matches!(
        MerkleTrie::prune(&store, &root),
        Err(MerkleError::CorruptChangeLog { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_node_bytes_never_panic(
        which in any::<prop::sample::Index>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..120),
    ) {
        let (store, root, nodes) = populated();
        let victim = &nodes[which.index(nodes.len())];
        overwrite(&store, "main", &node_key(victim).unwrap(), &bytes);
        let _ = exercise(&store, &root);
    }

    #[test]
    fn random_log_bytes_never_panic(
        log in proptest::collection::vec(any::<u8>(), 0..200),
        count in proptest::collection::vec(any::<u8>(), 0..12),
    ) {
        let (store, root, nodes) = populated();
        overwrite(&store, "change_log", &hex::decode(&root).unwrap(), &log);
        overwrite(&store, "duplicate_log", &hex::decode(&nodes[0]).unwrap(), &count);
        let _ = exercise(&store, &root);
    }
}

#[test]
fn a_node_that_is_its_own_child_is_an_error_not_a_hang() {
    let store = BTreeStore::open(TABLES).unwrap();
    MerkleTrie::new(&store).unwrap();
    let key = "1".repeat(64);
    let mut node = triebench_merkle::codec::Node::default();
    node.children.insert("ab".into(), key.clone());
    overwrite(
        &store,
        "main",
        &node_key(&key).unwrap(),
        &triebench_merkle::codec::encode(&node),
    );
    let trie = MerkleTrie::at_root(&store, &key).unwrap();
    assert!(matches!(
        trie.leaves(""),
        Err(MerkleError::CorruptNode { .. })
    ));
    assert_eq!(trie.get(&"ab".repeat(100)).unwrap(), None);
}
