//! Proofs of random states, on the btree store and on LMDB files: every stored address proves
//! its value, every absent one its absence, and nothing altered (value, node byte, root,
//! address, length) verifies.

mod common;

use common::{address, value, Model};
use proptest::prelude::*;
use triebench_kv::btree::BTreeStore;
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::Store;
use triebench_merkle::reference::root_of;
use triebench_merkle::{
    verify, MerkleError, MerkleTrie, Proof, ProofError, StateChange, TrieState, TABLES,
};

/// Fails the case unless `$result` matches `$pattern`, showing what it was.
macro_rules! prop_assert_err {
    ($result:expr, $pattern:pat) => {{
        let result = $result;
        prop_assert!(matches!(result, $pattern), "{:?}", result);
    }};
}

/// Production-length addresses (70 characters) over a small alphabet, so that they share
/// long prefixes.
fn long_address() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop::sample::select(vec!["00", "ab", "ff"]), 35)
        .prop_map(|tokens| tokens.concat())
}

fn any_address() -> impl Strategy<Value = String> {
    prop_oneof![address(), long_address()]
}

fn state() -> impl Strategy<Value = Model> {
    proptest::collection::btree_map(any_address(), value(), 0..24)
}

/// Where to alter one byte of a proof: node and byte picked modulo the proof's sizes, and a
/// non-zero mask.
type Tamper = (usize, usize, u8);

fn tamper() -> impl Strategy<Value = Tamper> {
    (any::<usize>(), any::<usize>(), 1..=255u8)
}

/// Addresses the state does not hold a value at: the candidates not in it, every prefix of a
/// stored address that is not itself stored (a node with no value), and stored addresses one
/// token longer.
fn absent(model: &Model, candidates: &[String]) -> Vec<String> {
    let mut out: Vec<String> = candidates.to_vec();
    for a in model.keys() {
        out.extend((0..a.len()).step_by(2).map(|n| a[..n].to_string()));
        out.push(format!("{a}0a"));
    }
    out.sort();
    out.dedup();
    out.retain(|a| !model.contains_key(a));
    out
}

/// Commits `model` in one batch and checks every proof property on the resulting root.
fn check<S: Store>(
    store: &S,
    model: &Model,
    candidates: &[String],
    (node_pick, byte_pick, mask): Tamper,
) -> Result<(), TestCaseError> {
    let batch: Vec<StateChange> = model
        .iter()
        .map(|(address, value)| StateChange::Set {
            address: address.clone(),
            value: value.clone(),
        })
        .collect();
    let root = MerkleTrie::new(store).unwrap().commit(&batch).unwrap();
    prop_assert_eq!(&root, &root_of(model).unwrap());
    let trie = MerkleTrie::at_root(store, &root).unwrap();
    let absent = absent(model, candidates);

    let mut proofs: Vec<(String, Option<Vec<u8>>, Proof)> = Vec::new();
    for (address, value) in model {
        let proof = trie.prove(address).unwrap();
        prop_assert_eq!(proof.nodes().len(), address.len() / 2 + 1);
        prop_assert_eq!(verify(&root, address, Some(value), &proof), Ok(()));
        prop_assert_err!(
            verify(&root, address, None, &proof),
            Err(ProofError::ProvedPresent { .. })
        );
        let other: Vec<u8> = value.iter().copied().chain([9]).collect();
        prop_assert_err!(
            verify(&root, address, Some(&other), &proof),
            Err(ProofError::ValueMismatch { .. })
        );
        proofs.push((address.clone(), Some(value.clone()), proof));
    }
    for address in &absent {
        let proof = trie.prove(address).unwrap();
        prop_assert!(proof.nodes().len() <= address.len() / 2 + 1);
        prop_assert_eq!(verify(&root, address, None, &proof), Ok(()));
        prop_assert_err!(
            verify(&root, address, Some(b"x"), &proof),
            Err(ProofError::ProvedAbsent { .. })
        );
        proofs.push((address.clone(), None, proof));
    }

    for (i, (address, claim, proof)) in proofs.iter().enumerate() {
        let claim = claim.as_deref();
        // The wire form carries the proof unchanged.
        let wire = proof.encode();
        prop_assert_eq!(wire.len(), proof.encoded_len());
        prop_assert_eq!(&Proof::decode(&wire).unwrap(), proof);

        // Another root: one hex digit changed.
        let mut other_root = root.clone().into_bytes();
        other_root[i % 64] = if other_root[i % 64] == b'0' {
            b'1'
        } else {
            b'0'
        };
        let other_root = String::from_utf8(other_root).unwrap();
        prop_assert_err!(
            verify(&other_root, address, claim, proof),
            Err(ProofError::RootMismatch { .. })
        );

        // One byte of one node altered: the node no longer hashes to what names it.
        let mut nodes = proof.nodes().to_vec();
        let n = node_pick % nodes.len();
        let b = byte_pick % nodes[n].len();
        nodes[n][b] ^= mask;
        let result = verify(&root, address, claim, &Proof::from_nodes(nodes));
        if n == 0 {
            prop_assert!(
                matches!(result, Err(ProofError::RootMismatch { .. })),
                "{:?}",
                result
            );
        } else {
            prop_assert!(
                matches!(result, Err(ProofError::NodeMismatch { depth, .. }) if depth == n),
                "{:?}",
                result
            );
        }

        // A node dropped from the end, or one too many.
        let mut nodes = proof.nodes().to_vec();
        let last = nodes.pop().unwrap();
        if !nodes.is_empty() {
            let result = verify(&root, address, claim, &Proof::from_nodes(nodes.clone()));
            prop_assert!(
                matches!(result, Err(ProofError::Truncated { .. })),
                "{:?}",
                result
            );
        }
        nodes.extend([last.clone(), last]);
        prop_assert!(verify(&root, address, claim, &Proof::from_nodes(nodes)).is_err());

        // Checked for another address: whatever it verifies is true of that address.
        for (other, other_claim, _) in proofs.iter().skip(i + 1).take(8) {
            for c in [claim, other_claim.as_deref()] {
                if verify(&root, other, c, proof).is_ok() {
                    prop_assert_eq!(
                        model.get(other).map(Vec::as_slice),
                        c,
                        "{}'s proof verified a false claim for {}",
                        address,
                        other
                    );
                }
            }
            // Its own claim, when the other address holds something else, never verifies.
            if claim != other_claim.as_deref() {
                prop_assert!(verify(&root, other, claim, proof).is_err());
            }
        }
    }
    Ok(())
}

proptest! {
    // 32 random states of up to a few hundred leaves, each proof checked and tampered with
    // every way above: ~0.6 s a case in the test build (96 cases were a minute of CI).
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn proofs_verify_exactly_what_the_btree_state_holds(
        model in state(),
        candidates in proptest::collection::vec(any_address(), 0..8),
        tamper in tamper(),
    ) {
        let store = BTreeStore::open(TABLES).unwrap();
        check(&store, &model, &candidates, tamper)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn proofs_verify_exactly_what_the_lmdb_state_holds(
        model in state(),
        candidates in proptest::collection::vec(any_address(), 0..8),
        tamper in tamper(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = LmdbStore::open(dir.path(), TABLES, LmdbOptions::default()).unwrap();
        check(&store, &model, &candidates, tamper)?;
    }
}

#[test]
fn a_node_that_is_not_a_trie_node_is_malformed() {
    // A root that is the hash of bytes that are not a node: the hash checks out, the node not.
    let garbage = b"not a node".to_vec();
    let root = triebench_merkle::codec::hash_hex(&garbage);
    let result = verify(&root, "ab", None, &Proof::from_nodes(vec![garbage]));
    assert!(
        matches!(result, Err(ProofError::Malformed { depth: 0, .. })),
        "{result:?}"
    );
}

#[test]
fn bad_inputs_are_typed_errors() {
    let store = BTreeStore::open(TABLES).unwrap();
    let state = TrieState::new(store).unwrap();
    let root = state
        .commit(triebench_merkle::EMPTY_ROOT, &[common::set("abcd", b"v")])
        .unwrap();
    let proof = state.prove(&root, "abcd").unwrap();
    assert_eq!(verify(&root, "abcd", Some(b"v"), &proof), Ok(()));
    assert_eq!(
        verify(&root, "abcd", Some(b"v"), &Proof::default()),
        Err(ProofError::Empty)
    );
    assert!(matches!(
        verify(&root, "abc", Some(b"v"), &proof),
        Err(ProofError::InvalidAddress { .. })
    ));
    assert!(matches!(
        verify(&root.to_uppercase(), "abcd", Some(b"v"), &proof),
        Err(ProofError::InvalidRoot { .. })
    ));
    assert!(matches!(
        state.prove(&"0".repeat(64), "abcd"),
        Err(MerkleError::UnknownRoot { .. })
    ));
    assert!(matches!(
        state.prove(&root, "ABCD"),
        Err(MerkleError::InvalidAddress { .. })
    ));
    // The empty address is the root's own node: one node, proving the root holds no value.
    let proof = state.prove(&root, "").unwrap();
    assert_eq!(proof.nodes().len(), 1);
    assert_eq!(verify(&root, "", None, &proof), Ok(()));
}

#[test]
fn a_damaged_store_is_a_corrupt_node_when_proving() {
    use triebench_kv::WriteTx;
    let store = BTreeStore::open(TABLES).unwrap();
    let root = MerkleTrie::new(&store)
        .unwrap()
        .commit(&[common::set("abcd", b"v")])
        .unwrap();
    let trie = MerkleTrie::at_root(&store, &root).unwrap();
    let nodes = trie.prove("abcd").unwrap().into_nodes();
    // Overwrite the "ab" node with bytes that are not a node.
    let hash = triebench_merkle::codec::hash_hex(&nodes[1]);
    let main = store.table("main").unwrap();
    let mut w = store.writer().unwrap();
    w.put(
        main,
        &triebench_merkle::store_layout::node_key(&hash).unwrap(),
        b"junk",
    )
    .unwrap();
    w.commit().unwrap();
    assert!(matches!(
        trie.prove("abcd"),
        Err(MerkleError::CorruptNode { .. })
    ));
}
