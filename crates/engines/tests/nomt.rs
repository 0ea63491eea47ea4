//! NOMT (feature `nomt`) on real NOMT files in temporary directories: roots equal to
//! [`ModelNomt`]'s (built from scratch by nomt-core) over random histories, the model itself
//! against roots computed by hand, reads at the latest root, the latest state read again after
//! reopening the directory, proofs (a tampered value, root or proof is rejected), and errors
//! for directories NOMT cannot use.
//!
//! Where this system denies NOMT io_uring ([`EngineError::Unavailable`]), each test says so on
//! stderr and passes without running: the engine cannot be measured there either.

#![cfg(feature = "nomt")]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::pool;
use proptest::prelude::*;
use sha2::{Digest, Sha256};
use triebench_engines::{
    check_roots, Engine, EngineError, ModelNomt, NomtEngine, NomtOptions, Root,
};
use triebench_merkle::StateChange;

/// Small options: a 4 MiB hash table (1,024 buckets), small caches.
fn small() -> NomtOptions {
    NomtOptions {
        buckets: NomtOptions::MIN_BUCKETS,
        page_cache_mib: 8,
        leaf_cache_mib: 8,
        ..NomtOptions::default()
    }
}

/// NOMT in `dir`, or `None` (said on stderr) where io_uring is unavailable.
fn open(dir: &Path) -> Option<NomtEngine> {
    match NomtEngine::open(dir, &small()) {
        Ok(engine) => Some(engine),
        Err(e @ EngineError::Unavailable { .. }) => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("NOMT does not open in {}: {e}", dir.display()),
    }
}

fn set(address: &str, value: &[u8]) -> StateChange {
    StateChange::Set {
        address: address.into(),
        value: value.to_vec(),
    }
}

fn delete(address: &str) -> StateChange {
    StateChange::Delete {
        address: address.into(),
    }
}

/// A history's batches: sets (empty values included) and deletes, of present and of absent
/// addresses alike (NOMT and its model both ignore the latter), and the mapping after each.
fn history() -> impl Strategy<Value = Vec<Vec<StateChange>>> {
    let change = prop_oneof![
        3 => (0..9usize, prop::sample::select(vec![vec![], vec![1], vec![2, 3], vec![7; 40]]))
            .prop_map(|(i, v)| set(&pool()[i], &v)),
        2 => (0..9usize).prop_map(|i| delete(&pool()[i])),
    ];
    proptest::collection::vec(proptest::collection::vec(change, 0..8), 1..6)
}

/// The mapping after each batch, later changes winning.
fn mappings(batches: &[Vec<StateChange>]) -> Vec<BTreeMap<String, Vec<u8>>> {
    let mut mapping = BTreeMap::new();
    let mut out = Vec::new();
    for batch in batches {
        for change in batch {
            match change {
                StateChange::Set { address, value } => {
                    mapping.insert(address.clone(), value.clone());
                }
                StateChange::Delete { address } => {
                    mapping.remove(address);
                }
            }
        }
        out.push(mapping.clone());
    }
    out
}

proptest! {
    // Few cases: every batch is a NOMT commit, with its fsyncs.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn nomt_matches_its_model(batches in history()) {
        let dir = tempfile::tempdir().unwrap();
        let Some(mut nomt) = open(&dir.path().join("nomt")) else { return Ok(()) };
        let roots = check_roots(&mut nomt, &mut ModelNomt::default(), &batches).unwrap();
        let latest = nomt.root();
        prop_assert_eq!(roots.last(), Some(&latest));
        let mapping = mappings(&batches).pop().unwrap();
        for address in pool() {
            prop_assert_eq!(nomt.get(&latest, &address).unwrap(), mapping.get(&address).cloned());
            let proof = nomt.prove(&latest, &address).unwrap().unwrap();
            nomt.verify(&latest, &address, mapping.get(&address).map(Vec::as_slice), &proof)
                .unwrap();
        }
        for root in roots.iter().filter(|r| **r != latest) {
            let unknown = nomt.get(root, "ab");
            prop_assert!(matches!(unknown, Err(EngineError::UnknownRoot { .. })), "{:?}", unknown);
        }
    }
}

/// The model's roots against roots hashed by hand with NOMT's rules (SHA-256; a leaf is
/// H(key path ‖ H(value)) with the top bit set, an internal node H(left ‖ right) with it
/// cleared, an empty subtree all zeros), so the reference is not only nomt-core checked
/// against itself.
#[test]
fn the_model_gives_roots_hashed_by_hand() {
    let sha = |parts: &[&[u8]]| -> [u8; 32] {
        let mut h = Sha256::new();
        for p in parts {
            h.update(p);
        }
        h.finalize().into()
    };
    let key = |address: &str| sha(&[&hex::decode(address).unwrap()]);
    let leaf = |address: &str, value: &[u8]| {
        let mut node = sha(&[&key(address), &sha(&[value])]);
        node[0] |= 0x80;
        node
    };
    let internal = |left: &[u8; 32], right: &[u8; 32]| {
        let mut node = sha(&[left, right]);
        node[0] &= 0x7f;
        node
    };
    // Two addresses whose key paths differ in their first bit, and one more.
    let mut addresses: Vec<String> = (0u8..=255).map(|b| hex::encode([b])).collect();
    addresses.sort_by_key(|a| key(a));
    let (low, high) = (&addresses[0], &addresses[255]);
    assert_eq!(key(low)[0] >> 7, 0);
    assert_eq!(key(high)[0] >> 7, 1);

    let mut model = ModelNomt::default();
    assert_eq!(model.root(), Root(vec![0; 32]));
    let one = model.apply(&[set(low, b"x")]).unwrap();
    assert_eq!(one, Root(leaf(low, b"x").to_vec()));
    let two = model.apply(&[set(high, b"y")]).unwrap();
    assert_eq!(
        two,
        Root(internal(&leaf(low, b"x"), &leaf(high, b"y")).to_vec())
    );
    // Back to one leaf: it rises to the root again.
    let back = model.apply(&[delete(low)]).unwrap();
    assert_eq!(back, Root(leaf(high, b"y").to_vec()));
}

/// A reference that is wrong (it stores every value with a byte more) is caught: the check
/// can fail.
#[test]
fn a_wrong_reference_is_caught() {
    struct Wrong(ModelNomt);
    impl Engine for Wrong {
        fn name(&self) -> &'static str {
            "wrong"
        }
        fn root(&self) -> Root {
            self.0.root()
        }
        fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
            let batch: Vec<_> = batch
                .iter()
                .map(|c| match c {
                    StateChange::Set { address, value } => {
                        set(address, &[value.as_slice(), b"!"].concat())
                    }
                    other => other.clone(),
                })
                .collect();
            self.0.apply(&batch)
        }
        fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
            self.0.get(root, address)
        }
        fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
            self.0.prune_before(root)
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(mut nomt) = open(&dir.path().join("nomt")) else {
        return;
    };
    let batches = vec![vec![set("abcd", b"v"), set("ff", b"w")]];
    let error = check_roots(&mut nomt, &mut Wrong(ModelNomt::default()), &batches).unwrap_err();
    assert!(
        matches!(error, EngineError::WrongRoot { batch: 0, .. }),
        "{error}"
    );
}

#[test]
fn reads_at_the_latest_root_only() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut nomt) = open(&dir.path().join("nomt")) else {
        return;
    };
    let empty = nomt.root();
    assert_eq!(empty, Root(vec![0; 32]));
    assert_eq!(nomt.get(&empty, "abcd").unwrap(), None);
    let first = nomt
        .apply(&[set("abcd", b"1"), set("ff", b""), set("ab00", b"gone")])
        .unwrap();
    // A later change to the same address wins; a delete of an absent address is nothing.
    let second = nomt
        .apply(&[
            set("abcd", b"2"),
            delete("ab00"),
            set("abcd", b"3"),
            delete("cdcd"),
        ])
        .unwrap();
    assert_ne!(first, second);
    assert_eq!(nomt.root(), second);
    assert_eq!(nomt.get(&second, "abcd").unwrap(), Some(b"3".to_vec()));
    assert_eq!(
        nomt.get(&second, "ff").unwrap(),
        Some(Vec::new()),
        "empty value"
    );
    assert_eq!(nomt.get(&second, "ab00").unwrap(), None, "deleted");
    assert_eq!(nomt.get(&second, "cdcd").unwrap(), None, "never set");
    assert!(matches!(
        nomt.get(&first, "abcd"),
        Err(EngineError::UnknownRoot { .. })
    ));
    assert!(matches!(
        nomt.prune_before(&first),
        Err(EngineError::UnknownRoot { .. })
    ));
    nomt.prune_before(&second).unwrap();
    assert_eq!(nomt.get(&second, "abcd").unwrap(), Some(b"3".to_vec()));
    // An empty batch commits nothing; an invalid address is an error, not a panic.
    assert_eq!(nomt.apply(&[]).unwrap(), second);
    assert!(nomt.apply(&[set("ABC", b"x")]).is_err());
    assert!(nomt.get(&second, "abc").is_err());
    assert_eq!(nomt.root(), second);
}

#[test]
fn the_latest_state_is_read_again_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nomt");
    let Some(mut nomt) = open(&path) else {
        return;
    };
    let batch: Vec<_> = (0u32..300)
        .map(|i| set(&hex::encode(i.to_be_bytes()), &i.to_le_bytes()))
        .collect();
    nomt.apply(&batch).unwrap();
    let root = nomt
        .apply(&[delete(&hex::encode(7u32.to_be_bytes())), set("ab", b"x")])
        .unwrap();
    let pages = nomt.hash_table_pages();
    // The root page and those of its 64 children with two leaves or more under them: too few
    // leaves under any other page to store it.
    assert_eq!(
        NomtOptions::expected_pages(300).round(),
        pages.occupied as f64,
        "{pages:?}"
    );
    drop(nomt);

    let mut nomt = NomtEngine::open(&path, &small()).unwrap();
    assert_eq!(nomt.root(), root);
    assert_eq!(nomt.get(&root, "ab").unwrap(), Some(b"x".to_vec()));
    assert_eq!(
        nomt.get(&root, &hex::encode(7u32.to_be_bytes())).unwrap(),
        None
    );
    assert_eq!(
        nomt.get(&root, &hex::encode(299u32.to_be_bytes())).unwrap(),
        Some(299u32.to_le_bytes().to_vec())
    );
    // And it goes on from there, as its model does from the same state.
    let mut model = ModelNomt::default();
    model.apply(&batch).unwrap();
    model
        .apply(&[delete(&hex::encode(7u32.to_be_bytes())), set("ab", b"x")])
        .unwrap();
    let next = [set("ab", b"y"), delete("ab")];
    assert_eq!(nomt.apply(&next).unwrap(), model.apply(&next).unwrap());
}

#[test]
fn proofs_verify_and_tampering_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut nomt) = open(&dir.path().join("nomt")) else {
        return;
    };
    // The empty trie proves absence too.
    let empty = nomt.root();
    let proof = nomt.prove(&empty, "abcd").unwrap().unwrap();
    nomt.verify(&empty, "abcd", None, &proof).unwrap();

    let batch: Vec<_> = (0u32..200)
        .map(|i| {
            set(
                &hex::encode(i.to_be_bytes()),
                format!("value {i}").as_bytes(),
            )
        })
        .collect();
    let first = nomt.apply(&batch).unwrap();
    let deleted = hex::encode(5u32.to_be_bytes());
    let root = nomt.apply(&[delete(&deleted)]).unwrap();
    let present = hex::encode(17u32.to_be_bytes());

    let proof = nomt.prove(&root, &present).unwrap().unwrap();
    nomt.verify(&root, &present, Some(b"value 17"), &proof)
        .unwrap();
    let rejected = |result: Result<(), EngineError>| {
        assert!(
            matches!(result, Err(EngineError::ProofRejected { .. })),
            "{result:?}"
        )
    };
    rejected(nomt.verify(&root, &present, Some(b"value 18"), &proof));
    rejected(nomt.verify(&root, &present, None, &proof));
    rejected(nomt.verify(&first, &present, Some(b"value 17"), &proof));
    let mut other = root.clone();
    other.0[31] ^= 1;
    rejected(nomt.verify(&other, &present, Some(b"value 17"), &proof));
    rejected(nomt.verify(&Root(vec![1; 5]), &present, Some(b"value 17"), &proof));
    // Every byte of the proof matters to it, except a terminator's position (absent here: this
    // proof ends at a leaf), so flipping any one is rejected or decodes to another proof that
    // does not verify.
    for at in 0..proof.len() {
        let mut tampered = proof.clone();
        tampered[at] ^= 0x10;
        rejected(nomt.verify(&root, &present, Some(b"value 17"), &tampered));
    }
    rejected(nomt.verify(
        &root,
        &present,
        Some(b"value 17"),
        &proof[..proof.len() - 1],
    ));
    // The proof is of this address: not another's.
    rejected(nomt.verify(
        &root,
        &hex::encode(18u32.to_be_bytes()),
        Some(b"value 17"),
        &proof,
    ));

    // Absence, of a deleted and of a never-set address.
    for absent in [deleted.as_str(), "abcdef"] {
        let proof = nomt.prove(&root, absent).unwrap().unwrap();
        nomt.verify(&root, absent, None, &proof).unwrap();
        rejected(nomt.verify(&root, absent, Some(b"value 5"), &proof));
        rejected(nomt.verify(&first, absent, None, &proof));
    }
    // Proofs are of the latest root only.
    assert!(matches!(
        nomt.prove(&first, &present),
        Err(EngineError::UnknownRoot { .. })
    ));
}

#[test]
fn directories_nomt_cannot_use_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let library = |result: Result<NomtEngine, EngineError>, what: &str| match result {
        Err(EngineError::Unavailable { .. }) => {}
        Err(EngineError::Library { message, .. }) => eprintln!("{what}: {message}"),
        other => panic!("{what}: {other:?}"),
    };
    // A missing parent.
    library(
        NomtEngine::open(&dir.path().join("missing/nomt"), &small()),
        "missing parent",
    );
    // A parent that is a file, and a "directory" that is a file.
    let file = dir.path().join("file");
    std::fs::write(&file, b"not a directory").unwrap();
    library(
        NomtEngine::open(&file.join("nomt"), &small()),
        "file parent",
    );
    library(NomtEngine::open(&file, &small()), "file");
    // A directory holding something else.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("meta"), b"not NOMT's").unwrap();
    library(NomtEngine::open(&other, &small()), "other files");
    // Options NOMT would assert on or divide by.
    for buckets in [0, 70] {
        let odd = NomtOptions { buckets, ..small() };
        library(
            NomtEngine::open(&dir.path().join("odd"), &odd),
            "buckets not a power of two",
        );
    }
    let zero = NomtOptions {
        io_workers: 0,
        ..small()
    };
    library(
        NomtEngine::open(&dir.path().join("zero2"), &zero),
        "0 I/O workers",
    );
    // A directory another engine holds (NOMT locks it).
    let held = dir.path().join("held");
    if let Some(_first) = open(&held) {
        library(NomtEngine::open(&held, &small()), "held");
    }
}

#[test]
fn for_leaves_sizes_the_hash_table() {
    assert_eq!(
        NomtOptions::for_leaves(10).buckets,
        NomtOptions::MIN_BUCKETS
    );
    // Twice the 4,161 pages NOMT stores for a million random keys, to a power of two.
    assert_eq!(NomtOptions::for_leaves(1_000_000).buckets, 16_384);
    assert_eq!(NomtOptions::for_leaves(10_000_000).buckets, 1 << 20);
    assert_eq!(NomtOptions::for_leaves(u64::MAX).buckets, 1 << 31);
    assert_eq!(
        NomtOptions::default().hash_table_bytes(),
        (8_192 + 2) * 4096
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nomt");
    let Some(_nomt) = open(&path) else {
        return;
    };
    // The ht file is the size the options say, whatever the state holds.
    let ht = std::fs::metadata(path.join("ht")).unwrap().len();
    assert_eq!(ht, small().hash_table_bytes());
    for file in triebench_engines::nomt::NOMT_FILES {
        assert!(path.join(file).exists(), "{file}");
    }
}

/// A delete of an address that holds nothing changes nothing, on an empty database too (where
/// NOMT 1.0.5 itself panics on it) and on small and larger ones.
#[test]
fn deletes_of_absent_addresses_change_nothing() {
    for leaves in [0u32, 1, 2, 300] {
        let dir = tempfile::tempdir().unwrap();
        let Some(mut nomt) = open(&dir.path().join("nomt")) else {
            return;
        };
        let mut model = ModelNomt::default();
        let fill: Vec<_> = (0..leaves)
            .map(|i| set(&hex::encode(i.to_be_bytes()), b"v"))
            .collect();
        let before = nomt.apply(&fill).unwrap();
        assert_eq!(before, model.apply(&fill).unwrap());
        for batch in [vec![delete("abab")], vec![delete("abab"), delete("cdcd")]] {
            assert_eq!(nomt.apply(&batch).unwrap(), before, "{leaves} leaves");
            assert_eq!(model.apply(&batch).unwrap(), before);
        }
        // Still writable.
        let next = [set("abab", b"x"), delete(&hex::encode(0u32.to_be_bytes()))];
        assert_eq!(nomt.apply(&next).unwrap(), model.apply(&next).unwrap());
    }
}

/// A hash table 90 % full refuses further commits (NOMT would hang filling it), and the
/// directory reopens at the last committed root.
#[test]
fn a_nearly_full_hash_table_refuses_commits_and_the_directory_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nomt");
    // 64 buckets: 300 leaves take the root page and 61 of its children (97 %).
    let tiny = NomtOptions {
        buckets: 64,
        ..small()
    };
    let mut nomt = match NomtEngine::open(&path, &tiny) {
        Err(EngineError::Unavailable { .. }) => return,
        other => other.unwrap(),
    };
    let fill: Vec<_> = (0u32..300)
        .map(|i| set(&hex::encode(i.to_be_bytes()), b"v"))
        .collect();
    let root = nomt.apply(&fill).unwrap();
    assert_eq!(nomt.hash_table_pages().occupied, 62);
    let refused = nomt.apply(&[set("ab", b"3")]);
    assert!(
        matches!(&refused, Err(EngineError::Library { message, .. }) if message.contains("90 %")),
        "{refused:?}"
    );
    assert_eq!(nomt.root(), root);
    drop(nomt);
    let nomt = NomtEngine::open(&path, &tiny).unwrap();
    assert_eq!(nomt.root(), root);
    assert_eq!(
        nomt.get(&root, &hex::encode(299u32.to_be_bytes())).unwrap(),
        Some(b"v".to_vec())
    );
}
