//! Ethereum's Merkle Patricia trie engine against Ethereum's published trie test vectors
//! (`fixtures/ethereum`), on the btree store, a real LMDB file and a real SQLite file; reads and
//! proofs of every vector's final state; a damaged store or a tampered proof is an error.

use std::collections::BTreeMap;

use triebench_engines::mpt::vectors;
use triebench_engines::{check_roots, Engine, EngineError, ModelMpt, MptEngine, Root, MPT_TABLES};
use triebench_kv::btree::BTreeStore;
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::sqlite::{SqliteMode, SqliteStore};
use triebench_kv::{ReadTx, Store, WriteTx};
use triebench_merkle::StateChange;

#[test]
fn every_published_vector_gives_its_root_on_btree() {
    let n = vectors::check(|| Ok(BTreeStore::open(MPT_TABLES)?)).unwrap();
    // trietest 4, trieanyorder 7, their secure twins 4 + 7, hex_encoded_securetrie_test 3.
    assert_eq!(n, 25);
}

#[test]
fn every_published_vector_gives_its_root_on_lmdb() {
    let dirs = std::cell::RefCell::new(Vec::new());
    vectors::check(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = LmdbStore::open(dir.path(), MPT_TABLES, LmdbOptions::default())?;
        dirs.borrow_mut().push(dir);
        Ok(store)
    })
    .unwrap();
}

#[test]
fn every_published_vector_gives_its_root_on_sqlite() {
    let dirs = std::cell::RefCell::new(Vec::new());
    vectors::check(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), MPT_TABLES, SqliteMode::Wal)?;
        dirs.borrow_mut().push(dir);
        Ok(store)
    })
    .unwrap();
}

/// The mapping a vector leaves (an empty value is absence).
fn final_state(changes: &[StateChange]) -> BTreeMap<String, Vec<u8>> {
    let mut state = BTreeMap::new();
    for change in changes {
        match change {
            StateChange::Set { address, value } if !value.is_empty() => {
                state.insert(address.clone(), value.clone());
            }
            StateChange::Set { address, .. } | StateChange::Delete { address } => {
                state.remove(address);
            }
        }
    }
    state
}

#[test]
fn every_vector_reads_and_proves_its_final_state_and_matches_the_model() {
    for vector in vectors::all().unwrap() {
        let mut engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
        let roots = check_roots(
            &mut engine,
            &mut ModelMpt::default(),
            std::slice::from_ref(&vector.changes),
        )
        .unwrap();
        let root = &roots[0];
        assert_eq!(root, &vector.root, "{}", vector.name);
        let state = final_state(&vector.changes);
        let every: Vec<&String> = vector
            .changes
            .iter()
            .map(|c| match c {
                StateChange::Set { address, .. } | StateChange::Delete { address } => address,
            })
            .collect();
        for address in every {
            let value = state.get(address);
            assert_eq!(
                engine.get(root, address).unwrap().as_ref(),
                value,
                "{} {address}",
                vector.name
            );
            let proof = engine.prove(root, address).unwrap().unwrap();
            engine
                .verify(root, address, value.map(Vec::as_slice), &proof)
                .unwrap();
            let wrong = match value {
                Some(_) => None,
                None => Some(&b"x"[..]),
            };
            assert!(engine.verify(root, address, wrong, &proof).is_err());
            // A proof with a node's byte flipped no longer reaches the root's nodes.
            let mut tampered = proof.clone();
            let last = tampered.len() - 1;
            tampered[last] ^= 1;
            assert!(engine
                .verify(root, address, value.map(Vec::as_slice), &tampered)
                .is_err());
        }
    }
}

#[test]
fn the_empty_trie_has_ethereums_empty_root_and_proves_absence() {
    let engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
    assert_eq!(
        engine.root().to_string(),
        "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
    );
    let proof = engine.prove(&engine.root(), "abcd").unwrap().unwrap();
    engine.verify(&engine.root(), "abcd", None, &proof).unwrap();
    assert!(engine
        .verify(&engine.root(), "abcd", Some(b"v"), &proof)
        .is_err());
}

#[test]
fn a_wrong_root_is_an_error() {
    // Checked against the trie's model: a different trie, a different root.
    let mut engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
    let batches = vec![vec![StateChange::Set {
        address: "abcd".into(),
        value: b"v".to_vec(),
    }]];
    let result = check_roots(
        &mut engine,
        &mut triebench_engines::ModelTrie::default(),
        &batches,
    );
    assert!(
        matches!(result, Err(EngineError::WrongRoot { batch: 0, .. })),
        "{result:?}"
    );
}

#[test]
fn a_damaged_or_missing_node_is_an_error_not_a_panic() {
    let mut engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
    let batch: Vec<StateChange> = (0u32..64)
        .map(|i| StateChange::Set {
            address: hex::encode(i.to_be_bytes()),
            value: vec![7; 40],
        })
        .collect();
    let root = engine.apply(&batch).unwrap();
    let store = engine.store();
    let nodes = store.table("mpt_nodes").unwrap();
    let stored = store
        .reader()
        .unwrap()
        .collect(nodes, &triebench_kv::KeyRange::all())
        .unwrap();
    assert!(stored.len() > 2);
    // Every node truncated, then every node gone but the root: reads fail with typed errors.
    for (key, value) in &stored {
        let mut w = store.writer().unwrap();
        w.put(nodes, key, &value[..value.len() / 2]).unwrap();
        w.commit().unwrap();
    }
    for i in [0u32, 17, 63] {
        let result = engine.get(&root, &hex::encode(i.to_be_bytes()));
        assert!(
            matches!(result, Err(EngineError::Corrupt { .. })),
            "{result:?}"
        );
    }
    let mut w = store.writer().unwrap();
    for (key, value) in &stored {
        if key.as_slice() == root.0.as_slice() {
            w.put(nodes, key, value).unwrap();
        } else {
            w.delete(nodes, key).unwrap();
        }
    }
    w.commit().unwrap();
    let result = engine.get(&root, &hex::encode(5u32.to_be_bytes()));
    assert!(
        matches!(result, Err(EngineError::Corrupt { .. })),
        "{result:?}"
    );
    let result = engine.apply(&[StateChange::Delete {
        address: hex::encode(5u32.to_be_bytes()),
    }]);
    assert!(
        matches!(result, Err(EngineError::Corrupt { .. })),
        "{result:?}"
    );
    // A root never committed is unknown.
    let result = engine.get(&Root(vec![1; 32]), "00");
    assert!(
        matches!(result, Err(EngineError::UnknownRoot { .. })),
        "{result:?}"
    );
}

#[test]
fn garbage_proofs_are_rejected() {
    let mut engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
    let root = engine
        .apply(&[StateChange::Set {
            address: "abcd".into(),
            value: vec![1; 40],
        }])
        .unwrap();
    for proof in [
        &[][..],
        &[0xc0],
        &[0xc1, 0x80],
        &[0xff, 0xff],
        &[0xc2, 0x81, 0x00],
    ] {
        assert!(
            engine.verify(&root, "abcd", Some(&[1; 40]), proof).is_err(),
            "{proof:?}"
        );
    }
}

/// A change for the random histories: keys of 0 to 4 bytes from a small alphabet (keys that
/// are prefixes of each other, long shared paths), values of 1 to 40 bytes (nodes on both
/// sides of the 32-byte line between inline and hashed), deletes of held and absent keys, and
/// sets to an empty value (a delete).
fn change() -> impl proptest::strategy::Strategy<Value = StateChange> {
    use proptest::prelude::*;
    let key = proptest::collection::vec(prop::sample::select(vec![0x00u8, 0x01, 0x10, 0xff]), 0..5)
        .prop_map(hex::encode);
    prop_oneof![
        4 => (key.clone(), proptest::collection::vec(any::<u8>(), 1..41))
            .prop_map(|(address, value)| StateChange::Set { address, value }),
        2 => key.clone().prop_map(|address| StateChange::Delete { address }),
        1 => key.prop_map(|address| StateChange::Set { address, value: Vec::new() }),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    #[test]
    fn random_histories_give_the_models_roots_and_reads(
        batches in proptest::collection::vec(proptest::collection::vec(change(), 0..12), 1..10)
    ) {
        let mut engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
        let mut model = ModelMpt::default();
        let mut roots = Vec::new();
        for batch in &batches {
            roots.extend(check_roots(&mut engine, &mut model, std::slice::from_ref(batch)).unwrap());
            engine.check_store().unwrap();
        }
        let mut state = BTreeMap::new();
        let mut states = Vec::new();
        for (batch, root) in batches.iter().zip(&roots) {
            for (address, value) in batch_effect(batch) {
                match value {
                    Some(value) => state.insert(address, value),
                    None => state.remove(&address),
                };
            }
            for change in batch {
                let (StateChange::Set { address, .. } | StateChange::Delete { address }) = change;
                proptest::prop_assert_eq!(engine.get(root, address).unwrap(), state.get(address).cloned());
                proptest::prop_assert_eq!(
                    engine.get(root, address).unwrap(),
                    model.get(root, address).unwrap()
                );
                let proof = engine.prove(root, address).unwrap().unwrap();
                proptest::prop_assert!(engine
                    .verify(root, address, state.get(address).map(Vec::as_slice), &proof)
                    .is_ok());
            }
            states.push(state.clone());
        }
        // Pruning the first half, then all but the last: the store holds exactly what the kept
        // versions reach, and they read as before.
        for keep in [roots.len() / 2, roots.len() - 1] {
            engine.prune_before(&roots[keep]).unwrap();
            engine.check_store().unwrap();
            for (root, state) in roots.iter().zip(&states).skip(keep) {
                for (address, value) in state {
                    proptest::prop_assert_eq!(engine.get(root, address).unwrap(), Some(value.clone()));
                }
            }
        }
        let last = engine.root();
        engine.prune_before(&last).unwrap();
        engine.check_store().unwrap();
    }
}

/// What a batch sets (`Some`) or removes (`None`), the later change to a key winning.
fn batch_effect(batch: &[StateChange]) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    for change in batch {
        match change {
            StateChange::Set { address, value } if !value.is_empty() => {
                out.insert(address.clone(), Some(value.clone()));
            }
            StateChange::Set { address, .. } | StateChange::Delete { address } => {
                out.insert(address.clone(), None);
            }
        }
    }
    out
}
