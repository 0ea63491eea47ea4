//! Two ways Transact 0.4.7's `MerkleState` goes wrong that `triebench-transact-state` does not, found by
//! the differential test (`differential.rs`) and reduced by hand to a few commits. Each test
//! asserts what Transact does today, so a Transact release that fixes it fails here and says
//! so, and asserts that ours gives the mapping's root and keeps every head readable.
//! `docs/findings/transact.md`, "Where Transact is wrong", lists them with the older cases.

use std::collections::{BTreeMap, HashMap};

use transact::database::btree::BTreeDatabase;
use transact::state::merkle::{MerkleRadixLeafReader, MerkleRadixTree, MerkleState, INDEXES};
use transact::state::{Prune, Read, StateChange, Write};
use triebench_merkle::reference::root_of;

fn transact() -> (MerkleState, String) {
    let db = Box::new(BTreeDatabase::new(&INDEXES));
    let root = MerkleRadixTree::new(db.clone(), None)
        .unwrap()
        .get_merkle_root();
    (MerkleState::new(db), root)
}

fn set(key: &str, value: &[u8]) -> StateChange {
    StateChange::Set {
        key: key.into(),
        value: value.to_vec(),
    }
}

fn del(key: &str) -> StateChange {
    StateChange::Delete { key: key.into() }
}

fn read<S: Read<StateId = String, Key = String, Value = Vec<u8>>>(
    state: &S,
    root: &str,
    key: &str,
) -> Result<Option<Vec<u8>>, String> {
    state
        .get(&root.to_string(), &[key.to_string()])
        .map(|mut m: HashMap<String, Vec<u8>>| m.remove(key))
        .map_err(|e| e.to_string())
}

/// Fault 3: a pruned chain loses a node its head still uses. One commit stores the same leaf
/// (same value, no children: the same node hash) at two addresses; the next deletes one of them,
/// and the node prunes the previous root after each block. The second prune deletes what the
/// delete replaced, the shared leaf, which the head still holds at the other address:
/// Transact's head reads that address as absent and its leaf listing fails.
#[test]
fn pruning_deletes_a_leaf_the_head_still_holds_at_another_address() {
    let blocks = [
        vec![set("000100", b"v"), set("ff1042", b"v")],
        vec![del("ff1042")],
    ];

    let (theirs, genesis) = transact();
    let ours = triebench_transact_state::open("btree", None).unwrap();
    let mut head = genesis;
    for batch in &blocks {
        let root = theirs.commit(&head, batch).unwrap();
        assert_eq!(ours.commit(&head, batch).unwrap(), root);
        // Keep one head: prune the previous root after each block.
        theirs.prune(vec![head.clone()]).unwrap();
        ours.prune(vec![head.clone()]).unwrap();
        head = root;
    }

    assert_eq!(read(&ours, &head, "000100"), Ok(Some(b"v".to_vec())));
    let ours_listed: Result<Vec<_>, _> = ours.leaves(&head, None).unwrap().collect();
    assert_eq!(
        ours_listed.unwrap(),
        vec![("000100".to_string(), b"v".to_vec())]
    );

    let transact_read = read(&theirs, &head, "000100");
    let transact_listed: Result<Vec<_>, _> = theirs.leaves(&head, None).unwrap().collect();
    println!(
        "Transact 0.4.7 at its head after the prunes: get 000100 = {transact_read:?}, \
         leaves = {:?}",
        transact_listed.as_ref().map_err(|e| e.to_string())
    );
    assert!(
        transact_read != Ok(Some(b"v".to_vec())) && transact_listed.is_err(),
        "Transact now keeps the shared leaf: fault 3 is fixed in this release"
    );
}

/// Fault 4: a set and a delete of one address in one batch leave an empty node. Transact keeps
/// every ancestor of a set address as a node, and the delete (which wins) then leaves the
/// ancestor with no value and no child when the address had no sibling: the root is not the
/// mapping's, so the same state has two roots depending on how it was reached.
#[test]
fn setting_and_deleting_an_only_child_in_one_batch_leaves_an_empty_node() {
    let (theirs, genesis) = transact();
    let ours = triebench_transact_state::open("btree", None).unwrap();
    let base = [set("aa0000", b"a"), set("bb0000", b"b")];
    let parent = theirs.commit(&genesis, &base).unwrap();
    assert_eq!(ours.commit(&genesis, &base).unwrap(), parent);

    // `bb0000` is the only address under `bb`: set it and delete it in one batch.
    let batch = [set("bb0000", b"again"), del("bb0000")];
    let mapping = root_of(&BTreeMap::from([("aa0000".to_string(), b"a".to_vec())])).unwrap();
    let their_root = theirs.commit(&parent, &batch).unwrap();
    println!("Transact 0.4.7: {their_root}; the mapping {{aa0000: a}}: {mapping}");
    assert_eq!(ours.commit(&parent, &batch).unwrap(), mapping);
    assert_ne!(
        their_root, mapping,
        "Transact now gives the mapping's root: fault 4 is fixed in this release"
    );
    // The same mapping reached by a plain delete has the mapping's root on both.
    assert_eq!(theirs.commit(&parent, &[del("bb0000")]).unwrap(), mapping);
}
