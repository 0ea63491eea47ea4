//! A large batch's levels are finished on rayon's threads: the roots, and every byte the
//! commits store, are the same whatever the number of threads, and the roots are the
//! reference model's.

mod common;

use common::{apply, contents, Model};
use sha2::{Digest, Sha512};
use triebench_kv::btree::BTreeStore;
use triebench_merkle::{reference, MerkleTrie, StateChange, TABLES};

/// A 70-hex-digit address, as Transact's families use, from `i`.
fn address(i: u32) -> String {
    hex::encode(&Sha512::digest(i.to_be_bytes())[..35])
}

/// Three commits: 5,000 sets (levels of 5,000 nodes, finished in parallel); 2,000 updates, 1,000 deletes and 1,000 new addresses; the
/// earlier root again (a commit of no change).
fn batches() -> Vec<Vec<StateChange>> {
    let set = |i: u32, v: &str| StateChange::Set {
        address: address(i),
        value: format!("{v}{i}").into_bytes(),
    };
    let first = (0..5_000).map(|i| set(i, "a")).collect();
    let second = (0..2_000)
        .map(|i| set(i, "b"))
        .chain((2_000..3_000).map(|i| StateChange::Delete {
            address: address(i),
        }))
        .chain((5_000..6_000).map(|i| set(i, "c")))
        .collect();
    vec![first, second, Vec::new()]
}

/// The roots of [`batches`] committed on a fresh store with `threads` threads, and the store.
fn commit_with(threads: usize) -> (Vec<String>, BTreeStore) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let store = BTreeStore::open(TABLES).expect("btree store");
    let roots = pool.install(|| {
        let mut root = MerkleTrie::new(&store).expect("trie").root().to_string();
        let mut roots = Vec::new();
        for batch in batches() {
            let trie = MerkleTrie::at_root(&store, &root).expect("trie at root");
            let computed = trie.compute(&batch).expect("compute");
            root = trie.commit(&batch).expect("commit");
            assert_eq!(computed, root, "compute and commit agree");
            roots.push(root.clone());
        }
        roots
    });
    (roots, store)
}

#[test]
fn the_same_roots_and_bytes_on_one_thread_and_on_four() {
    let (one, one_store) = commit_with(1);
    let (four, four_store) = commit_with(4);
    assert_eq!(one, four, "the roots");
    let (one, four) = (contents(&one_store), contents(&four_store));
    for ((table, one), four) in TABLES.iter().zip(&one).zip(&four) {
        assert_eq!(one.len(), four.len(), "entries of {table}");
        assert!(
            one == four,
            "table {table} differs between one thread and four"
        );
    }
}

#[test]
fn a_large_batch_reaches_the_reference_models_root_on_four_threads() {
    let (roots, _store) = commit_with(4);
    let mut mapping = Model::new();
    for (batch, root) in batches().iter().zip(&roots) {
        mapping = apply(&mapping, batch).expect("every delete hits a stored address");
        assert_eq!(&reference::root_of(&mapping).expect("reference root"), root);
    }
}
