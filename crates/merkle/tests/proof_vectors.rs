//! Proofs against the roots Transact computes: the compatibility vectors of the design brief
//! (the same as `vectors.rs`), written here as the literal roots, on the btree store and on
//! LMDB files. Every address of each state proves its value against the literal root, and
//! absent ones (deleted, prefixes, neighbours) prove their absence.

mod common;

use common::{set, update_entry};
use triebench_kv::btree::BTreeStore;
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::Store;
use triebench_merkle::{verify, MerkleTrie, ProofError, StateChange, EMPTY_ROOT, TABLES};

/// A vector: batches committed in order from the empty root, the root Transact gives after
/// the last, what each address then holds, and addresses to prove absent.
struct Vector {
    name: &'static str,
    batches: Vec<Vec<StateChange>>,
    root: &'static str,
    present: Vec<(String, Vec<u8>)>,
    absent: Vec<String>,
}

fn vectors() -> Vec<Vector> {
    let thousand: Vec<(String, Vec<u8>)> = (0..1000).map(update_entry).collect();
    let sets = |entries: &[(String, Vec<u8>)]| -> Vec<StateChange> {
        entries.iter().map(|(a, v)| set(a, v)).collect()
    };
    let mut mixed: Vec<StateChange> = thousand[..50].iter().map(|(a, _)| set(a, b"5.0")).collect();
    mixed.extend(
        thousand[500..550]
            .iter()
            .map(|(a, _)| StateChange::Delete { address: a.clone() }),
    );
    let after_mixed: Vec<(String, Vec<u8>)> = thousand
        .iter()
        .enumerate()
        .filter(|(i, _)| !(500..550).contains(i))
        .map(|(i, (a, v))| (a.clone(), if i < 50 { b"5.0".to_vec() } else { v.clone() }))
        .collect();
    let s = |a: &str| a.to_string();
    let entry = |a: &str, v: &[u8]| (a.to_string(), v.to_vec());
    vec![
        Vector {
            name: "empty",
            batches: vec![],
            root: EMPTY_ROOT,
            present: vec![],
            absent: vec![s(""), s("ab"), s("abcd")],
        },
        Vector {
            name: "abcd",
            batches: vec![vec![set("abcd", b"data_value")]],
            root: "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870",
            present: vec![entry("abcd", b"data_value")],
            absent: vec![s(""), s("ab"), s("abce"), s("abcd00"), s("1234")],
        },
        Vector {
            name: "three siblings",
            batches: vec![vec![
                set("ab0000", b"0001"),
                set("ab0a01", b"0002"),
                set("abff00", b"0003"),
            ]],
            root: "19fcc3dfc5173fb3b12b55086f02c11f42a645a58da9a3f28d47b174946c0e3d",
            present: vec![
                entry("ab0000", b"0001"),
                entry("ab0a01", b"0002"),
                entry("abff00", b"0003"),
            ],
            absent: vec![s("ab"), s("ab0a"), s("ab0a02"), s("ab0b01"), s("ac0000")],
        },
        Vector {
            name: "65,536-byte value (length quirk)",
            batches: vec![vec![set("ab", &vec![b'x'; 65_536])]],
            root: "3fdce3c5df3b291a188e41eba24a65f2b88b49f1ea5ed23c3c25613517697754",
            present: vec![entry("ab", &vec![b'x'; 65_536])],
            absent: vec![s(""), s("abab")],
        },
        Vector {
            name: "interior value",
            batches: vec![vec![set("abcd", &[2])], vec![set("ab", &[1])]],
            root: "d162fcd181fc3857500ce987636fc7dd88e6ceaea734ab7a7a7c71dce316b179",
            present: vec![entry("ab", &[1]), entry("abcd", &[2])],
            absent: vec![s(""), s("abce"), s("abcdef")],
        },
        Vector {
            name: "update, 1000 single-key commits",
            batches: thousand.iter().map(|(a, v)| vec![set(a, v)]).collect(),
            root: "8a5b72e8c541e97267d481e59f389774ff656624bb8cb0b0c7ce1fb59ab35a5f",
            present: thousand.clone(),
            absent: (1000..1050).map(|i| update_entry(i).0).collect(),
        },
        Vector {
            name: "update, then 50 sets and 50 deletes",
            batches: vec![sets(&thousand), mixed],
            root: "26c1c3b4cd2c6fcd1726f15829e674c78b042822983bd62250b12d2f42c5a8bc",
            present: after_mixed,
            absent: thousand[500..550].iter().map(|(a, _)| a.clone()).collect(),
        },
    ]
}

fn check_vectors<S: Store>(open: impl Fn() -> S) {
    for vector in vectors() {
        let store = open();
        let mut trie = MerkleTrie::new(&store).unwrap();
        for batch in &vector.batches {
            let root = trie.commit(batch).unwrap();
            trie.set_root(&root).unwrap();
        }
        assert_eq!(trie.root(), vector.root, "{}: root", vector.name);
        for (address, value) in &vector.present {
            let proof = trie.prove(address).unwrap();
            assert_eq!(
                verify(vector.root, address, Some(value), &proof),
                Ok(()),
                "{}: {address}",
                vector.name
            );
            assert!(matches!(
                verify(vector.root, address, Some(b"other"), &proof),
                Err(ProofError::ValueMismatch { .. } | ProofError::ProvedAbsent { .. })
            ));
        }
        for address in &vector.absent {
            let proof = trie.prove(address).unwrap();
            assert_eq!(
                verify(vector.root, address, None, &proof),
                Ok(()),
                "{}: {address} absent",
                vector.name
            );
            // Against another vector's root the same proof is refused.
            let other = if vector.root == EMPTY_ROOT {
                "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870"
            } else {
                EMPTY_ROOT
            };
            assert!(matches!(
                verify(other, address, None, &proof),
                Err(ProofError::RootMismatch { .. })
            ));
        }
    }
}

#[test]
fn proofs_verify_against_transact_roots_on_btree() {
    check_vectors(|| BTreeStore::open(TABLES).unwrap());
}

#[test]
fn proofs_verify_against_transact_roots_on_lmdb() {
    let dirs = std::cell::RefCell::new(Vec::new());
    check_vectors(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = LmdbStore::open(dir.path(), TABLES, LmdbOptions::default()).unwrap();
        dirs.borrow_mut().push(dir);
        store
    });
}
