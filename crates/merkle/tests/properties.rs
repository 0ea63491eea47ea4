//! The root depends only on the final mapping: property tests against the reference model.

mod common;

use common::{apply, batch, del, set, Model};
use proptest::prelude::*;
use triebench_kv::btree::BTreeStore;
use triebench_merkle::reference::root_of;
use triebench_merkle::{MerkleError, MerkleTrie, StateChange, EMPTY_ROOT, TABLES};

fn check_reads(trie: &MerkleTrie<'_, BTreeStore>, model: &Model) -> Result<(), TestCaseError> {
    let leaves: Model = trie.leaves("").unwrap().into_iter().collect();
    prop_assert_eq!(&leaves, model);
    for (address, value) in model {
        let got = trie.get(address).unwrap();
        prop_assert_eq!(got.as_ref(), Some(value));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any history of batches (including refused ones) ends at the model's root, and reads
    /// see the model.
    #[test]
    fn random_histories_match_the_model(batches in proptest::collection::vec(batch(), 1..12)) {
        let store = BTreeStore::open(TABLES).unwrap();
        let mut trie = MerkleTrie::new(&store).unwrap();
        let mut model = Model::new();
        for changes in &batches {
            let computed = trie.compute(changes);
            let committed = trie.commit(changes);
            match apply(&model, changes) {
                Some(next) => {
                    let root = committed.unwrap();
                    prop_assert_eq!(computed.unwrap(), root.clone());
                    prop_assert_eq!(root.clone(), root_of(&next).unwrap());
                    trie.set_root(&root).unwrap();
                    model = next;
                }
                None => {
                    let refused = |r: &Result<String, MerkleError>| {
                        matches!(r, Err(MerkleError::DeleteAbsent { .. }))
                    };
                    prop_assert!(refused(&computed), "compute: {:?}", computed);
                    prop_assert!(refused(&committed), "commit: {:?}", committed);
                }
            }
            check_reads(&trie, &model)?;
        }
    }

    /// One big batch gives the same root as the same changes committed one by one.
    #[test]
    fn one_batch_equals_one_by_one(changes in batch(), more in batch()) {
        let changes: Vec<StateChange> = changes.into_iter().chain(more).collect();
        let Some(model) = apply(&Model::new(), &changes) else { return Ok(()); };
        let store = BTreeStore::open(TABLES).unwrap();
        let mut trie = MerkleTrie::new(&store).unwrap();
        let batched = trie.commit(&changes).unwrap();
        for change in &changes {
            let root = trie.commit(std::slice::from_ref(change)).unwrap();
            trie.set_root(&root).unwrap();
        }
        prop_assert_eq!(trie.root(), batched.as_str());
        prop_assert_eq!(batched, root_of(&model).unwrap());
    }

    /// Setting a new address then deleting it returns the previous root, in one batch or two.
    #[test]
    fn set_then_delete_returns_the_previous_root(
        base in batch(),
        address in common::address(),
        value in common::value(),
    ) {
        let Some(model) = apply(&Model::new(), &base) else { return Ok(()); };
        let store = BTreeStore::open(TABLES).unwrap();
        let mut trie = MerkleTrie::new(&store).unwrap();
        let root = trie.commit(&base).unwrap();
        trie.set_root(&root).unwrap();
        match model.get(&address) {
            None => {
                prop_assert_eq!(trie.commit(&[set(&address, &value), del(&address)]).unwrap(), root.clone());
                let mid = trie.commit(&[set(&address, &value)]).unwrap();
                trie.set_root(&mid).unwrap();
                prop_assert_eq!(trie.commit(&[del(&address)]).unwrap(), root.clone());
            }
            Some(old) => {
                // Changing a value and changing it back also returns the previous root.
                let old = old.clone();
                let mid = trie.commit(&[set(&address, &value)]).unwrap();
                trie.set_root(&mid).unwrap();
                prop_assert_eq!(trie.commit(&[set(&address, &old)]).unwrap(), root.clone());
            }
        }
        // Every root reached stays readable.
        let back = MerkleTrie::at_root(&store, &root).unwrap();
        check_reads(&back, &model)?;
    }
}

/// Transact's interior-value bugs, which this crate must not reproduce.
#[test]
fn interior_values_survive() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    // Setting both in one commit keeps `ab`.
    let both = trie.commit(&[set("ab", &[1]), set("abcd", &[2])]).unwrap();
    trie.set_root(&both).unwrap();
    assert_eq!(trie.get("ab").unwrap(), Some(vec![1]));
    assert_eq!(trie.get("abcd").unwrap(), Some(vec![2]));
    // Deleting `abcd` keeps `ab`.
    let only_ab = trie.commit(&[del("abcd")]).unwrap();
    assert_eq!(
        only_ab,
        root_of(&[("ab".to_string(), vec![1])].into()).unwrap()
    );
    // Deleting `ab` while `abcd` exists removes `ab` (not a no-op) and keeps `abcd`.
    let only_abcd = trie.commit(&[del("ab")]).unwrap();
    assert_ne!(only_abcd, both);
    assert_eq!(
        only_abcd,
        root_of(&[("abcd".to_string(), vec![2])].into()).unwrap()
    );
    trie.set_root(&only_abcd).unwrap();
    assert_eq!(trie.get("ab").unwrap(), None);
    assert_eq!(trie.get("abcd").unwrap(), Some(vec![2]));
    // Deleting everything gives the empty root back.
    assert_eq!(trie.commit(&[del("abcd")]).unwrap(), EMPTY_ROOT);
}

#[test]
fn batch_semantics() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    // A later change to the same address wins.
    let r = trie.commit(&[set("aa", &[1]), set("aa", &[2])]).unwrap();
    assert_eq!(r, root_of(&[("aa".to_string(), vec![2])].into()).unwrap());
    // Set then delete in one batch is a delete (of an address absent before: no change).
    assert_eq!(
        trie.commit(&[set("aa", &[1]), del("aa")]).unwrap(),
        EMPTY_ROOT
    );
    // Deleting twice fails, and nothing is written.
    let count_before = MerkleTrie::change_log(&store, &r).unwrap();
    let err = trie
        .commit(&[set("bb", &[1]), del("bb"), del("bb")])
        .unwrap_err();
    assert!(matches!(err, MerkleError::DeleteAbsent { ref address } if address == "bb"));
    assert_eq!(MerkleTrie::change_log(&store, &r).unwrap(), count_before);
    // Empty batch: same root.
    assert_eq!(trie.commit(&[]).unwrap(), EMPTY_ROOT);
    assert_eq!(trie.compute(&[]).unwrap(), EMPTY_ROOT);
}

#[test]
fn invalid_input_is_typed() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    for bad in ["abc", "AB", "zz", "a b "] {
        assert!(
            matches!(trie.get(bad), Err(MerkleError::InvalidAddress { .. })),
            "{bad}"
        );
        assert!(matches!(
            trie.commit(&[set(bad, &[1])]),
            Err(MerkleError::InvalidAddress { .. })
        ));
    }
    assert!(matches!(
        trie.commit(&[del("abcd")]),
        Err(MerkleError::DeleteAbsent { .. })
    ));
    assert!(matches!(
        MerkleTrie::at_root(&store, &"0".repeat(64)),
        Err(MerkleError::UnknownRoot { .. })
    ));
    assert!(matches!(
        MerkleTrie::at_root(&store, "xyz"),
        Err(MerkleError::InvalidHash { .. })
    ));
    // A store without the trie's tables.
    let other = BTreeStore::open(&["main"]).unwrap();
    assert!(matches!(
        MerkleTrie::new(&other),
        Err(MerkleError::Storage(_))
    ));
}

#[test]
fn leaves_by_prefix() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    assert!(trie.leaves("").unwrap().is_empty());
    let r = trie
        .commit(&[
            set("ab0000", b"0000"),
            set("aba001", b"000a"),
            set("abff02", b"0014"),
            set("ab", b"top"),
            set("cd", b"other"),
        ])
        .unwrap();
    trie.set_root(&r).unwrap();
    let addresses = |prefix: &str| -> Vec<String> {
        trie.leaves(prefix)
            .unwrap()
            .into_iter()
            .map(|(a, _)| a)
            .collect()
    };
    assert_eq!(addresses(""), ["ab", "ab0000", "aba001", "abff02", "cd"]);
    assert_eq!(addresses("ab"), ["ab", "ab0000", "aba001", "abff02"]);
    assert_eq!(addresses("abf"), ["abff02"]);
    assert_eq!(addresses("aba"), ["aba001"]);
    assert_eq!(addresses("a"), ["ab", "ab0000", "aba001", "abff02"]);
    assert_eq!(addresses("abff02"), ["abff02"]);
    assert!(addresses("ee").is_empty());
    assert!(addresses("abff0233").is_empty());
    assert!(matches!(
        trie.leaves("aX"),
        Err(MerkleError::InvalidAddress { .. })
    ));
}
