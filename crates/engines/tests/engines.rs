//! The engines (ours, JMT, Ethereum's MPT) on the btree store and on LMDB files, each beside its
//! reference for random histories: equal roots after every batch, reads at every kept root,
//! proofs, and pruning that releases old versions and keeps the newer ones readable.

mod common;

use std::collections::BTreeMap;

use common::pool;
use proptest::prelude::*;
use triebench_engines::{
    check_roots, Engine, EngineError, JmtEngine, KvTreeStore, MockJmt, ModelMpt, ModelTrie,
    MptEngine, Root, TrieEngine, JMT_TABLES, MPT_TABLES,
};
use triebench_kv::btree::BTreeStore;
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::{ReadTx, Store};
use triebench_merkle::{StateChange, TABLES};

type Model = BTreeMap<String, Vec<u8>>;

/// An operation on the pool: set address `i` to a value, or delete it.
#[derive(Debug, Clone)]
enum Op {
    Set(usize, Vec<u8>),
    Delete(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..9usize, prop::sample::select(vec![vec![], vec![1], vec![2, 3]]))
            .prop_map(|(i, v)| Op::Set(i, v)),
        2 => (0..9usize).prop_map(Op::Delete),
    ]
}

fn history() -> impl Strategy<Value = Vec<Vec<Op>>> {
    proptest::collection::vec(proptest::collection::vec(op(), 0..6), 1..8)
}

/// The batches of a history, deletes of addresses that hold nothing dropped (the trie refuses
/// them, JMT ignores them), and the mapping after each batch.
fn batches(history: &[Vec<Op>]) -> (Vec<Vec<StateChange>>, Vec<Model>) {
    let pool = pool();
    let mut model = Model::new();
    let mut out = Vec::new();
    let mut models = Vec::new();
    for ops in history {
        let mut batch = Vec::new();
        for op in ops {
            match op {
                Op::Set(i, v) => {
                    model.insert(pool[*i].clone(), v.clone());
                    batch.push(StateChange::Set {
                        address: pool[*i].clone(),
                        value: v.clone(),
                    });
                }
                Op::Delete(i) => {
                    if model.remove(&pool[*i]).is_some() {
                        batch.push(StateChange::Delete {
                            address: pool[*i].clone(),
                        });
                    }
                }
            }
        }
        out.push(batch);
        models.push(model.clone());
    }
    (out, models)
}

/// Checks `engine` against `reference` on a history, then reads, proofs and pruning. For an
/// engine where an empty value is absence (the MPT: `empty_is_absent`), the model's empty
/// values are read as absent.
fn check<E: Engine, R: Engine>(
    engine: &mut E,
    reference: &mut R,
    history: &[Vec<Op>],
    stored: impl Fn(&E) -> u64,
    empty_is_absent: bool,
) -> Result<(), TestCaseError> {
    let (batches, mut models) = batches(history);
    if empty_is_absent {
        for model in &mut models {
            model.retain(|_, v| !v.is_empty());
        }
    }
    let roots = check_roots(engine, reference, &batches).unwrap();
    prop_assert_eq!(&engine.root(), roots.last().unwrap());
    let pool = pool();
    let reads = |engine: &E, from: usize| -> Result<(), TestCaseError> {
        for (root, model) in roots.iter().zip(&models).skip(from) {
            for address in &pool {
                prop_assert_eq!(
                    engine.get(root, address).unwrap(),
                    model.get(address).cloned(),
                    "{} at {}",
                    address,
                    root
                );
            }
        }
        Ok(())
    };
    reads(engine, 0)?;

    // Proofs at the latest root: the true claim verifies, a false one does not.
    let (root, model) = (roots.last().unwrap(), models.last().unwrap());
    for address in &pool {
        let Some(proof) = engine.prove(root, address).unwrap() else {
            continue;
        };
        let value = model.get(address).map(Vec::as_slice);
        prop_assert!(
            engine.verify(root, address, value, &proof).is_ok(),
            "{}",
            address
        );
        let wrong = match value {
            Some(_) => None,
            None => Some(&b"x"[..]),
        };
        prop_assert!(
            engine.verify(root, address, wrong, &proof).is_err(),
            "{}",
            address
        );
        let mut other = root.0.clone();
        other[0] ^= 1;
        prop_assert!(engine.verify(&Root(other), address, value, &proof).is_err());
    }

    // Pruning the first half of the versions keeps the rest readable and stores no more.
    let keep = roots.len() / 2;
    let before = stored(engine);
    engine.prune_before(&roots[keep]).unwrap();
    prop_assert!(stored(engine) <= before);
    reads(engine, keep)?;
    // A pruned root is unknown, or, where its nodes are still stored (the trie stores a node
    // once, by its hash, however many roots use it), reads exactly what it held.
    for (root, model) in roots.iter().zip(&models).take(keep) {
        for address in &pool {
            if let Ok(value) = engine.get(root, address) {
                prop_assert_eq!(value, model.get(address).cloned(), "pruned {}", root);
            }
        }
    }
    Ok(())
}

fn trie_nodes<S: Store>(engine: &TrieEngine<S>) -> u64 {
    let store = engine.state().store();
    let main = store.table("main").unwrap();
    store.reader().unwrap().count(main).unwrap()
}

fn jmt_nodes<S: Store>(engine: &JmtEngine<KvTreeStore<S>>) -> u64 {
    let store = engine.store().store();
    let nodes = store.table("jmt_nodes").unwrap();
    store.reader().unwrap().count(nodes).unwrap()
}

fn mpt_nodes<S: Store>(engine: &MptEngine<S>) -> u64 {
    let store = engine.store();
    let nodes = store.table("mpt_nodes").unwrap();
    store.reader().unwrap().count(nodes).unwrap()
}

fn lmdb(dir: &tempfile::TempDir, tables: &[&str]) -> LmdbStore {
    LmdbStore::open(dir.path(), tables, LmdbOptions::default()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn trie_matches_its_model_on_btree(history in history()) {
        let mut engine = TrieEngine::new(BTreeStore::open(TABLES).unwrap()).unwrap();
        check(&mut engine, &mut ModelTrie::default(), &history, trie_nodes, false)?;
    }

    #[test]
    fn jmt_matches_its_mock_on_btree(history in history()) {
        let store = KvTreeStore::new(BTreeStore::open(JMT_TABLES).unwrap()).unwrap();
        let mut engine = JmtEngine::new(store);
        check(&mut engine, &mut MockJmt::default(), &history, jmt_nodes, false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn mpt_matches_its_model_on_btree(history in history()) {
        let mut engine = MptEngine::new(BTreeStore::open(MPT_TABLES).unwrap()).unwrap();
        check(&mut engine, &mut ModelMpt::default(), &history, mpt_nodes, true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn mpt_matches_its_model_on_lmdb(history in history()) {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = MptEngine::new(lmdb(&dir, MPT_TABLES)).unwrap();
        check(&mut engine, &mut ModelMpt::default(), &history, mpt_nodes, true)?;
    }

    #[test]
    fn trie_matches_its_model_on_lmdb(history in history()) {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = TrieEngine::new(lmdb(&dir, TABLES)).unwrap();
        check(&mut engine, &mut ModelTrie::default(), &history, trie_nodes, false)?;
    }

    #[test]
    fn jmt_matches_its_mock_on_lmdb(history in history()) {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = JmtEngine::new(KvTreeStore::new(lmdb(&dir, JMT_TABLES)).unwrap());
        check(&mut engine, &mut MockJmt::default(), &history, jmt_nodes, false)?;
    }
}

#[test]
fn a_wrong_root_is_an_error() {
    // The trie checked against JMT's mock: different engines, different roots.
    let mut engine = TrieEngine::new(BTreeStore::open(TABLES).unwrap()).unwrap();
    let batches = vec![vec![StateChange::Set {
        address: "abcd".into(),
        value: b"v".to_vec(),
    }]];
    let result = check_roots(&mut engine, &mut MockJmt::default(), &batches);
    assert!(
        matches!(result, Err(EngineError::WrongRoot { batch: 0, .. })),
        "{result:?}"
    );
}

#[test]
fn the_trie_engine_gives_transact_roots() {
    let mut engine = TrieEngine::new(BTreeStore::open(TABLES).unwrap()).unwrap();
    let root = engine
        .apply(&[StateChange::Set {
            address: "abcd".into(),
            value: b"data_value".to_vec(),
        }])
        .unwrap();
    assert_eq!(
        root.to_string(),
        "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870"
    );
}

#[test]
fn the_jmt_engine_reads_the_newest_value_of_a_key() {
    let mut engine =
        JmtEngine::new(KvTreeStore::new(BTreeStore::open(JMT_TABLES).unwrap()).unwrap());
    let set = |v: u8| {
        vec![StateChange::Set {
            address: "ab".into(),
            value: vec![v],
        }]
    };
    let roots: Vec<Root> = (0..5).map(|v| engine.apply(&set(v)).unwrap()).collect();
    for (v, root) in roots.iter().enumerate() {
        assert_eq!(engine.get(root, "ab").unwrap(), Some(vec![v as u8]));
    }
    assert!(matches!(
        engine.get(&roots[0], "abc"),
        Err(EngineError::Trie(_))
    ));
}

#[test]
fn jmt_ignores_a_delete_of_an_absent_key() {
    let mut engine =
        JmtEngine::new(KvTreeStore::new(BTreeStore::open(JMT_TABLES).unwrap()).unwrap());
    let set = vec![StateChange::Set {
        address: "ab".into(),
        value: vec![1],
    }];
    let root = engine.apply(&set).unwrap();
    let delete = vec![StateChange::Delete {
        address: "cd".into(),
    }];
    let after = engine.apply(&delete).unwrap();
    assert_eq!(after, root);
    assert_eq!(engine.get(&after, "ab").unwrap(), Some(vec![1]));
}

/// Transact's `update` data: 1,000 keys (64-hex-character addresses: the first 32 bytes of the
/// SHA-512 of the key) in batches of 100, then 50 sets and 50 deletes in one batch.
fn update_batches() -> Vec<Vec<StateChange>> {
    let mut batches: Vec<Vec<StateChange>> = (0..10)
        .map(|b| {
            (b * 100..(b + 1) * 100)
                .map(|i| {
                    let (address, value) = update_entry(i);
                    StateChange::Set { address, value }
                })
                .collect()
        })
        .collect();
    let mut mixed: Vec<StateChange> = (0..50)
        .map(|i| StateChange::Set {
            address: update_entry(i).0,
            value: b"5.0".to_vec(),
        })
        .collect();
    mixed.extend((500..550).map(|i| StateChange::Delete {
        address: update_entry(i).0,
    }));
    batches.push(mixed);
    batches
}

/// Key `i` of the `update` data: its address and its first value.
fn update_entry(i: u32) -> (String, Vec<u8>) {
    use sha2::{Digest, Sha512};
    let key = format!("{i:016x}");
    (
        hex::encode(&Sha512::digest(key.as_bytes())[..32]),
        key.into_bytes(),
    )
}

/// The `update` data on LMDB: the MPT beside its model, reading back what it holds and proving
/// it, then pruning.
#[test]
fn the_update_workload_on_lmdb_gives_the_mpt_models_roots() {
    let batches = update_batches();
    let dir = tempfile::tempdir().unwrap();
    let mut mpt = MptEngine::new(lmdb(&dir, MPT_TABLES)).unwrap();
    let roots = check_roots(&mut mpt, &mut ModelMpt::default(), &batches).unwrap();
    let last = roots.last().unwrap();
    for i in [0u32, 49, 50, 499, 500, 549, 550, 999, 1000] {
        let (address, value) = update_entry(i);
        let expected = match i {
            0..50 => Some(b"5.0".to_vec()),
            500..550 | 1000.. => None,
            _ => Some(value.clone()),
        };
        assert_eq!(mpt.get(last, &address).unwrap(), expected, "key {i}");
        let proof = mpt.prove(last, &address).unwrap().unwrap();
        mpt.verify(last, &address, expected.as_deref(), &proof)
            .unwrap();
        // The root before the mixed batch still reads.
        if i < 1000 {
            assert_eq!(
                mpt.get(&roots[9], &address).unwrap(),
                Some(value),
                "key {i}"
            );
        }
    }
    // Pruning every earlier version releases their nodes; the last reads as before.
    mpt.check_store().unwrap();
    let before = mpt_nodes(&mpt);
    mpt.prune_before(last).unwrap();
    mpt.check_store().unwrap();
    assert!(mpt_nodes(&mpt) < before);
    assert!(matches!(
        mpt.get(&roots[0], &update_entry(0).0),
        Err(EngineError::UnknownRoot { .. })
    ));
    for i in [0u32, 50, 999] {
        assert!(mpt.get(last, &update_entry(i).0).unwrap().is_some());
    }
}

/// Transact's `update` data (1,000 keys, then 50 sets and 50 deletes in one batch) in commits
/// of 100, on LMDB: JMT beside its mock, the trie beside its model and Transact's roots.
#[test]
fn the_update_workload_on_lmdb_matches_the_references() {
    let entry = update_entry;
    let batches = update_batches();

    let dir = tempfile::tempdir().unwrap();
    let mut trie = TrieEngine::new(lmdb(&dir, TABLES)).unwrap();
    let roots = check_roots(&mut trie, &mut ModelTrie::default(), &batches).unwrap();
    assert_eq!(
        roots[9].to_string(),
        "8a5b72e8c541e97267d481e59f389774ff656624bb8cb0b0c7ce1fb59ab35a5f"
    );
    assert_eq!(
        roots[10].to_string(),
        "26c1c3b4cd2c6fcd1726f15829e674c78b042822983bd62250b12d2f42c5a8bc"
    );

    let dir = tempfile::tempdir().unwrap();
    let mut jmt = JmtEngine::new(KvTreeStore::new(lmdb(&dir, JMT_TABLES)).unwrap());
    let roots = check_roots(&mut jmt, &mut MockJmt::default(), &batches).unwrap();
    let last = roots.last().unwrap();
    let before = jmt_nodes(&jmt);
    jmt.prune_before(last).unwrap();
    assert!(jmt_nodes(&jmt) < before);
    for i in [0u32, 49, 50, 499, 500, 549, 550, 999, 1000] {
        let (address, value) = entry(i);
        let expected = match i {
            0..50 => Some(b"5.0".to_vec()),
            500..550 | 1000.. => None,
            _ => Some(value),
        };
        assert_eq!(jmt.get(last, &address).unwrap(), expected, "key {i}");
        let proof = jmt.prove(last, &address).unwrap().unwrap();
        jmt.verify(last, &address, expected.as_deref(), &proof)
            .unwrap();
    }
    assert!(matches!(
        jmt.get(&roots[0], &entry(0).0),
        Err(EngineError::UnknownRoot { .. })
    ));
}

/// Transact 0.4.7's own `MerkleState`, on its in-memory database and on kv stores (btree, LMDB,
/// SQLite files), and the trie give the same roots on Transact's `update` data, read the same
/// values, and read their last root after pruning every earlier one, which releases nodes.
#[cfg(feature = "transact")]
#[test]
fn transact_and_the_trie_give_the_same_roots_on_the_update_workload() {
    use triebench_engines::{KvDatabase, TransactEngine, TRANSACT_TABLES};
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    let batches = update_batches();
    let dir = tempfile::tempdir().unwrap();
    let mut trie = TrieEngine::new(lmdb(&dir, TABLES)).unwrap();
    let roots = check_roots(&mut trie, &mut ModelTrie::default(), &batches).unwrap();
    assert_eq!(
        roots[10].to_string(),
        "26c1c3b4cd2c6fcd1726f15829e674c78b042822983bd62250b12d2f42c5a8bc"
    );
    let last = roots.last().unwrap();
    trie.prune_before(last).unwrap();

    let lmdb_dir = tempfile::tempdir().unwrap();
    let sqlite_dir = tempfile::tempdir().unwrap();
    let btree = KvDatabase::new(BTreeStore::open(TRANSACT_TABLES).unwrap()).unwrap();
    let on_lmdb = KvDatabase::new(lmdb(&lmdb_dir, TRANSACT_TABLES)).unwrap();
    let on_sqlite = KvDatabase::new(
        SqliteStore::open(sqlite_dir.path(), TRANSACT_TABLES, SqliteMode::Wal).unwrap(),
    )
    .unwrap();
    // Each engine with the count of Transact's nodes it stores (not counted in memory).
    let engines: Vec<(TransactEngine, Box<dyn Fn() -> u64>)> = vec![
        (TransactEngine::in_memory().unwrap(), Box::new(|| 0)),
        (TransactEngine::on(Box::new(btree.clone())).unwrap(), {
            let db = btree.clone();
            Box::new(move || count(db.store(), "transact_main"))
        }),
        (TransactEngine::on(Box::new(on_lmdb.clone())).unwrap(), {
            let db = on_lmdb.clone();
            Box::new(move || count(db.store(), "transact_main"))
        }),
        (TransactEngine::on(Box::new(on_sqlite.clone())).unwrap(), {
            let db = on_sqlite.clone();
            Box::new(move || count(db.store(), "transact_main"))
        }),
    ];
    for (mut transact, stored) in engines {
        let mut fresh = TrieEngine::new(BTreeStore::open(TABLES).unwrap()).unwrap();
        assert_eq!(transact.root(), fresh.root());
        assert_eq!(
            check_roots(&mut transact, &mut fresh, &batches).unwrap(),
            roots
        );
        let before = stored();
        transact.prune_before(last).unwrap();
        let after = stored();
        assert!(
            after <= before && (before == 0 || after < before),
            "{before} -> {after}"
        );
        for i in [0u32, 49, 50, 499, 500, 549, 550, 999, 1000] {
            let address = update_entry(i).0;
            assert_eq!(
                transact.get(last, &address).unwrap(),
                trie.get(last, &address).unwrap(),
                "key {i}"
            );
        }
        assert!(matches!(
            transact.get(&roots[0], &update_entry(0).0),
            Err(EngineError::UnknownRoot { .. })
        ));
        assert!(transact.prove(last, &update_entry(0).0).unwrap().is_none());
    }
}

/// Entries in `table` of `store`.
#[cfg(feature = "transact")]
fn count<S: Store>(store: &S, table: &str) -> u64 {
    let table = store.table(table).unwrap();
    store.reader().unwrap().count(table).unwrap()
}

#[cfg(feature = "transact")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random histories over production-length addresses (none on another's path, where
    /// Transact 0.4.7 is wrong), each batch reduced to one change per address and no delete of
    /// an address the batch set (Transact's faults): Transact's roots, on its own database and
    /// on a kv store, are the trie's.
    #[test]
    fn transact_matches_the_trie_where_transact_is_right(history in history()) {
        use triebench_engines::TransactEngine;
        let pool = pool();
        let mut held = BTreeMap::new();
        let batches: Vec<Vec<StateChange>> = history
            .iter()
            .map(|ops| {
                let mut last: BTreeMap<usize, Option<Vec<u8>>> = BTreeMap::new();
                for op in ops {
                    match op {
                        Op::Set(i, v) => last.insert(5 + i % 4, Some(v.clone())),
                        Op::Delete(i) => last.insert(5 + i % 4, None),
                    };
                }
                let mut batch = Vec::new();
                for (i, value) in last {
                    let address = pool[i].clone();
                    match value {
                        Some(value) => {
                            held.insert(i, ());
                            batch.push(StateChange::Set { address, value });
                        }
                        None => {
                            if held.remove(&i).is_some() {
                                batch.push(StateChange::Delete { address });
                            }
                        }
                    }
                }
                batch
            })
            .collect();
        let mut trie = TrieEngine::new(BTreeStore::open(TABLES).unwrap()).unwrap();
        let roots = check_roots(&mut trie, &mut ModelTrie::default(), &batches).unwrap();
        let on_kv = TransactEngine::on_store(
            BTreeStore::open(triebench_engines::TRANSACT_TABLES).unwrap(),
        );
        for mut transact in [TransactEngine::in_memory().unwrap(), on_kv.unwrap()] {
            let mut fresh = TrieEngine::new(BTreeStore::open(TABLES).unwrap()).unwrap();
            prop_assert_eq!(&check_roots(&mut transact, &mut fresh, &batches).unwrap(), &roots);
            for root in &roots {
                for address in &pool[5..] {
                    prop_assert_eq!(
                        transact.get(root, address).unwrap(),
                        trie.get(root, address).unwrap()
                    );
                }
            }
        }
    }
}
