//! A large batch is finished on rayon's threads, a run of whole subtrees per task: the roots,
//! and every byte the commits store, are the same whatever the number of threads, and the roots
//! are the reference model's.

mod common;

use common::{apply, contents, Model};
use proptest::prelude::*;
use sha2::{Digest, Sha512};
use triebench_kv::btree::BTreeStore;
use triebench_merkle::{reference, MerkleTrie, StateChange, TABLES};

/// A 70-hex-digit address, as Transact's families use, from `i`.
fn address(i: u32) -> String {
    hex::encode(&Sha512::digest(i.to_be_bytes())[..35])
}

/// Three commits: 5,000 sets (levels of 5,000 nodes: a growth fill's shape); 2,000 updates,
/// 1,000 deletes and 1,000 new addresses; the earlier root again (a commit of no change).
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

/// The roots of `batches` committed on a fresh store with `threads` threads, and the store.
fn commit_with(threads: usize, batches: &[Vec<StateChange>]) -> (Vec<String>, BTreeStore) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let store = BTreeStore::open(TABLES).expect("btree store");
    let roots = pool.install(|| {
        let mut root = MerkleTrie::new(&store).expect("trie").root().to_string();
        let mut roots = Vec::new();
        for batch in batches {
            let trie = MerkleTrie::at_root(&store, &root).expect("trie at root");
            let computed = trie.compute(batch).expect("compute");
            root = trie.commit(batch).expect("commit");
            assert_eq!(computed, root, "compute and commit agree");
            roots.push(root.clone());
        }
        roots
    });
    (roots, store)
}

#[test]
fn the_same_roots_and_bytes_on_one_thread_and_on_four() {
    let (one, one_store) = commit_with(1, &batches());
    let (four, four_store) = commit_with(4, &batches());
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
    let (roots, _store) = commit_with(4, &batches());
    let mut mapping = Model::new();
    for (batch, root) in batches().iter().zip(&roots) {
        mapping = apply(&mapping, batch).expect("every delete hits a stored address");
        assert_eq!(&reference::root_of(&mapping).expect("reference root"), root);
    }
}

/// Batches of a few hundred addresses, a few thousand nodes: each is finished a run of
/// subtrees per task. Every other address lies under `prefix`, the rest under the same with
/// its first token `ee` (two families' namespaces: the cut lies below them, and the nodes
/// above it are finished between the tasks and after them), every tenth is also
/// set one token short (an interior value); the second batch updates, re-sets the same value,
/// deletes and adds, and the third deletes everything left (every node removed).
fn subtree_batches(prefix: &str, seed: u64, count: u32) -> Vec<Vec<StateChange>> {
    let hash = |i: u32, salt: u8| {
        let mut h = Sha512::new();
        h.update(seed.to_be_bytes());
        h.update(i.to_be_bytes());
        h.update([salt]);
        h.finalize()
    };
    let sibling = if prefix.is_empty() {
        String::new()
    } else {
        format!("ee{}", &prefix[2..])
    };
    let address = |i: u32| {
        let namespace = if i.is_multiple_of(2) {
            prefix
        } else {
            sibling.as_str()
        };
        format!("{namespace}{}", hex::encode(&hash(i, 0)[..35]))[..70].to_string()
    };
    let mut addresses: Vec<String> = (0..count).map(address).collect();
    let interior: Vec<String> = addresses
        .iter()
        .step_by(10)
        .map(|a| a[..68].to_string())
        .collect();
    addresses.extend(interior);
    let set = |address: &String, value: &[u8]| StateChange::Set {
        address: address.clone(),
        value: value.to_vec(),
    };
    let first: Vec<StateChange> = addresses.iter().map(|a| set(a, b"v1")).collect();
    let mut second = Vec::new();
    let mut left = Vec::new();
    for (i, address) in addresses.iter().enumerate() {
        match hash(i as u32, 1)[0] % 4 {
            0 => left.push(address),
            1 => {
                second.push(set(address, b"v1"));
                left.push(address);
            }
            2 => {
                second.push(set(address, b"v2"));
                left.push(address);
            }
            _ => second.push(StateChange::Delete {
                address: address.clone(),
            }),
        }
    }
    let added: Vec<String> = (count..count + count / 4).map(address).collect();
    second.extend(added.iter().map(|a| set(a, b"new")));
    left.extend(&added);
    let third = left
        .into_iter()
        .map(|address| StateChange::Delete {
            address: address.clone(),
        })
        .collect();
    vec![first, second, third]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn subtrees_finished_side_by_side_store_what_one_thread_does(
        prefix in prop::sample::select(vec!["", "ab", "abcd", "abcdef", "abcdef00"]),
        seed in any::<u64>(),
        count in 130u32..400,
    ) {
        let batches = subtree_batches(prefix, seed, count);
        let (one, one_store) = commit_with(1, &batches);
        let (two, two_store) = commit_with(2, &batches);
        prop_assert_eq!(&one, &two, "the roots");
        prop_assert!(contents(&one_store) == contents(&two_store), "the stored bytes");
        let mut mapping = Model::new();
        for (batch, root) in batches.iter().zip(&two) {
            mapping = apply(&mapping, batch).expect("every delete hits a stored address");
            prop_assert_eq!(&reference::root_of(&mapping).expect("reference root"), root);
        }
        prop_assert!(mapping.is_empty(), "the last batch deletes everything");
    }
}

/// Batches of ~9,000 addresses under two namespaces, with interior values and removals:
/// 300,000 nodes and more, cut into more tasks than one wave takes, so that the waves' merging
/// (the nodes above the cut finished between them) is what one thread's sweep stores too.
#[test]
fn several_waves_of_subtrees_store_what_one_thread_does() {
    let batches = subtree_batches("abcd", 51, 8_500);
    let (one, one_store) = commit_with(1, &batches);
    let (two, two_store) = commit_with(2, &batches);
    assert_eq!(one, two, "the roots");
    assert!(
        contents(&one_store) == contents(&two_store),
        "the stored bytes"
    );
    let mut mapping = Model::new();
    for (batch, root) in batches.iter().zip(&two) {
        mapping = apply(&mapping, batch).expect("every delete hits a stored address");
        assert_eq!(&reference::root_of(&mapping).expect("reference root"), root);
    }
}
