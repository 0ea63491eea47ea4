//! Pruning a root that a commit reached again (issue 35, item 1).
//!
//! A commit that changes nothing returns its parent root, and a commit may also end at a root
//! that is already live. Such a root is still a head, so the next prune of it must release
//! nothing: Transact 0.4.7 gets this from its node reference counts, and its own test
//! `merkle_trie_prune_deep_successor_tree` (restated here in our own code, on every profile this
//! build includes) prunes the previous root after every commit, one of which changes nothing.
//! The property then runs any history of blocks (no-op ones included: empty batches, values
//! set again, a set undone in the same batch, a revert to an earlier mapping, deletes of absent
//! addresses) with "prune the root of `lag` blocks ago" after each, and checks that every root
//! still in the window reads back.

mod common;

use common::{apply, batch, changes_to, del, on_fresh_store, set, Model};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use triebench_kv::btree::BTreeStore;
use triebench_kv::{FreshStores, Profile, ReadTx, Store, StoreVisitor};
use triebench_merkle::{MerkleTrie, StateChange, EMPTY_ROOT, TABLES};

/// Checks `expected` at `root`: the root opens, `get` returns the value for every address given,
/// and the leaves listed are exactly `expected`.
fn read_back<S: Store>(
    store: &S,
    root: &str,
    expected: &[(&str, Option<&[u8]>)],
) -> Result<(), String> {
    let trie = MerkleTrie::at_root(store, root).map_err(|e| format!("open {root}: {e}"))?;
    for (address, value) in expected {
        let got = trie
            .get(address)
            .map_err(|e| format!("get {address} at {root}: {e}"))?;
        if got.as_deref() != *value {
            return Err(format!(
                "{address} at {root}: got {got:?}, expected {value:?}"
            ));
        }
    }
    Ok(())
}

/// Transact 0.4.7's `merkle_trie_prune_deep_successor_tree`, step for step: three values, then
/// four single-change commits, pruning the previous root after each. The last commit sets
/// `ab0001` to the value it already holds, so it returns its parent root, which the loop then
/// prunes as "the previous root".
struct DeepSuccessorTree;

impl StoreVisitor for DeepSuccessorTree {
    type Output = Result<(), String>;

    fn visit<S: Store + 'static>(self, store: S) -> Result<(), String> {
        let trie = MerkleTrie::new(&store).map_err(|e| format!("open trie: {e}"))?;
        let mut parent = trie
            .commit(&[
                set("ab0000", b"0001"),
                set("ab0a01", b"0002"),
                set("ab0100", b"0003"),
            ])
            .map_err(|e| format!("first commit: {e}"))?;
        read_back(
            &store,
            &parent,
            &[
                ("ab0000", Some(b"0001")),
                ("ab0a01", Some(b"0002")),
                ("ab0100", Some(b"0003")),
            ],
        )?;
        let steps = [
            set("ffffff", b"prune-ffffff"),
            set("ab0001", b"0004"),
            del("ab0000"),
            set("ab0001", b"0004"),
        ];
        for (i, change) in steps.iter().enumerate() {
            let old_parent = parent.clone();
            parent = MerkleTrie::at_root(&store, &parent)
                .and_then(|t| t.commit(std::slice::from_ref(change)))
                .map_err(|e| format!("step {i}: commit: {e}"))?;
            if i == 3 && parent != old_parent {
                return Err("the last step should change nothing".into());
            }
            read_back(
                &store,
                &parent,
                &[("ab0a01", Some(b"0002")), ("ab0100", Some(b"0003"))],
            )
            .map_err(|e| format!("step {i}, after commit: {e}"))?;
            MerkleTrie::prune(&store, &old_parent).map_err(|e| format!("step {i}: prune: {e}"))?;
            read_back(
                &store,
                &parent,
                &[("ab0a01", Some(b"0002")), ("ab0100", Some(b"0003"))],
            )
            .map_err(|e| format!("step {i}, after pruning the previous root: {e}"))?;
        }
        read_back(
            &store,
            &parent,
            &[
                ("ffffff", Some(b"prune-ffffff")),
                ("ab0000", None),
                ("ab0a01", Some(b"0002")),
                ("ab0100", Some(b"0003")),
                ("ab0001", Some(b"0004")),
            ],
        )
    }
}

#[test]
fn transact_prune_deep_successor_tree_on_every_profile() {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = Profile::enabled()
            .into_iter()
            .map(|profile| {
                let run = move || -> Result<(), String> {
                    let parent = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
                    let stores =
                        FreshStores::new(profile, parent.path()).map_err(|e| e.to_string())?;
                    stores
                        .try_run(TABLES, DeepSuccessorTree)
                        .map_err(|e| format!("open: {e}"))?
                };
                (profile, scope.spawn(run))
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|(profile, handle)| match handle.join() {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(format!("{profile}: {e}")),
                Err(_) => Some(format!("{profile}: the test panicked")),
            })
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The smallest form of the fault: a commit that changes nothing, then a prune of that root.
#[test]
fn pruning_a_root_a_no_op_commit_returned_keeps_it() {
    let store = BTreeStore::open(TABLES).unwrap();
    let trie = MerkleTrie::new(&store).unwrap();
    let root = trie.commit(&[set("abcd", b"v")]).unwrap();
    let head = MerkleTrie::at_root(&store, &root).unwrap();
    for noop in [
        vec![set("abcd", b"v")],
        vec![],
        vec![set("ee", b"x"), del("ee")],
    ] {
        assert_eq!(head.commit(&noop).unwrap(), root);
        assert!(MerkleTrie::prune(&store, &root).unwrap().is_empty());
        let t = MerkleTrie::at_root(&store, &root).unwrap();
        assert_eq!(t.get("abcd").unwrap(), Some(b"v".to_vec()));
        assert!(MerkleTrie::change_log(&store, &root).unwrap().is_some());
    }
    // Reached once and pruned once: the next prune is a tip's prune again.
    assert_eq!(MerkleTrie::prune(&store, &root).unwrap().len(), 3);
    assert!(MerkleTrie::at_root(&store, &root).is_err());
}

/// A commit ending at another live root holds that root through one prune too.
#[test]
fn a_live_root_reached_from_elsewhere_survives_one_prune() {
    let store = BTreeStore::open(TABLES).unwrap();
    let empty = MerkleTrie::new(&store).unwrap();
    let a = empty.commit(&[set("ab", b"1")]).unwrap();
    let b = MerkleTrie::at_root(&store, &a)
        .unwrap()
        .commit(&[set("cd", b"2")])
        .unwrap();
    // From `b` back to `a`'s mapping: `a` is reached again.
    let back = MerkleTrie::at_root(&store, &b)
        .unwrap()
        .commit(&[del("cd")])
        .unwrap();
    assert_eq!(back, a);
    // `a` is the oldest root with one successor: without the extra reach this prune would
    // delete `a`'s root node.
    assert!(MerkleTrie::prune(&store, &a).unwrap().is_empty());
    assert_eq!(
        MerkleTrie::at_root(&store, &a).unwrap().get("ab").unwrap(),
        Some(b"1".to_vec())
    );
    // `b` is a tip; pruning it leaves `a` whole.
    MerkleTrie::prune(&store, &b).unwrap();
    let t = MerkleTrie::at_root(&store, &a).unwrap();
    assert_eq!(
        t.leaves("").unwrap(),
        vec![("ab".to_string(), b"1".to_vec())]
    );
}

/// One block of a history.
#[derive(Debug, Clone)]
enum Block {
    /// Any batch: may change nothing (a set undone by a delete, an empty batch) or fail (a
    /// delete of an absent address, and then nothing is written).
    Changes(Vec<StateChange>),
    /// Sets the n-th stored addresses (up to three) to the values they already hold.
    SetAgain(prop::sample::Index),
    /// Deletes an address that holds no value: the commit fails.
    DeleteAbsent,
    /// Restores the mapping of the head `n` blocks back (a live root when within the window).
    Revert(prop::sample::Index),
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        4 => batch().prop_map(Block::Changes),
        1 => Just(Block::Changes(Vec::new())),
        2 => any::<prop::sample::Index>().prop_map(Block::SetAgain),
        1 => Just(Block::DeleteAbsent),
        2 => any::<prop::sample::Index>().prop_map(Block::Revert),
    ]
}

/// The batch of `block` on top of `heads` (the last is the current head).
fn changes_of(block: &Block, heads: &[(String, Model)]) -> Vec<StateChange> {
    let Some((_, model)) = heads.last() else {
        return Vec::new();
    };
    match block {
        Block::Changes(changes) => changes.clone(),
        Block::SetAgain(i) => {
            if model.is_empty() {
                return Vec::new();
            }
            let start = i.index(model.len());
            model
                .iter()
                .cycle()
                .skip(start)
                .take(model.len().min(3))
                .map(|(a, v)| set(a, v))
                .collect()
        }
        // Addresses here are at most 8 hex characters (see `common::address`).
        Block::DeleteAbsent => vec![del("1234567890")],
        Block::Revert(i) => changes_to(model, &heads[i.index(heads.len())].1),
    }
}

/// Runs `blocks` as a chain: each commits on the current head, and after each successful
/// commit the head of `lag` blocks ago is pruned. Every head still in the window must open and
/// read back its model exactly (leaves and `get`).
fn chain<S: Store>(store: &S, blocks: &[Block], lag: usize) -> Result<(), TestCaseError> {
    let fail = |e: triebench_merkle::MerkleError| TestCaseError::fail(e.to_string());
    MerkleTrie::new(store).map_err(fail)?;
    let mut heads: Vec<(String, Model)> = vec![(EMPTY_ROOT.to_string(), Model::new())];
    for (n, block) in blocks.iter().enumerate() {
        let changes = changes_of(block, &heads);
        let (head, model) = heads.last().cloned().unwrap_or_default();
        let result = MerkleTrie::at_root(store, &head)
            .map_err(fail)?
            .commit(&changes);
        match apply(&model, &changes) {
            None => prop_assert!(result.is_err(), "block {}: {:?} should fail", n, changes),
            Some(next) => {
                let root = result.map_err(fail)?;
                if next == model {
                    prop_assert_eq!(&root, &head, "block {}: a no-op moved the root", n);
                }
                heads.push((root, next));
                if heads.len() > lag {
                    let (old, _) = &heads[heads.len() - 1 - lag];
                    MerkleTrie::prune(store, old).map_err(fail)?;
                }
            }
        }
        // Pruning the previous root keeps up: the head's entry and at most one other are left.
        // (Further back, a root can keep several successors, and Transact's rule keeps those.)
        if lag == 1 {
            let entries = store
                .reader()
                .and_then(|r| r.count(store.table("change_log")?))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(entries <= 2, "block {}: {} change-log entries", n, entries);
        }
        let window = heads.len().saturating_sub(lag);
        for (root, model) in &heads[window..] {
            let trie = MerkleTrie::at_root(store, root)
                .map_err(|e| TestCaseError::fail(format!("block {n}: head {root}: {e}")))?;
            let leaves: Model = trie.leaves("").map_err(fail)?.into_iter().collect();
            prop_assert_eq!(&leaves, model, "block {}: head {}", n, root);
            for (address, value) in model {
                let got = trie.get(address).map_err(fail)?;
                prop_assert_eq!(
                    got.as_ref(),
                    Some(value),
                    "block {}: {} at {}",
                    n,
                    address,
                    root
                );
            }
        }
    }
    Ok(())
}

/// [`chain`] on a fresh store of one profile.
struct Chain<'b> {
    blocks: &'b [Block],
    lag: usize,
}

impl StoreVisitor for Chain<'_> {
    type Output = Result<(), TestCaseError>;

    fn visit<S: Store + 'static>(self, store: S) -> Result<(), TestCaseError> {
        chain(&store, self.blocks, self.lag)
    }
}

fn on_profile(profile: Profile, blocks: &[Block], lag: usize) -> Result<(), TestCaseError> {
    on_fresh_store(profile, Chain { blocks, lag })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Pruning the previous head after every block (or the head 2 or 3 blocks back) never
    /// loses a head still in the window, whatever the blocks do.
    #[test]
    fn pruning_old_heads_keeps_every_live_head_readable(
        blocks in proptest::collection::vec(block(), 1..40),
        lag in 1usize..=3,
    ) {
        let store = BTreeStore::open(TABLES).unwrap();
        chain(&store, &blocks, lag)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The same on the persistent backends' stores (fewer cases: each opens a store on disk).
    #[test]
    fn pruning_old_heads_keeps_every_live_head_readable_on_disk(
        blocks in proptest::collection::vec(block(), 1..25),
        lag in 1usize..=2,
    ) {
        for profile in [Profile::Lmdb, Profile::SqliteWal] {
            if profile.is_enabled() {
                on_profile(profile, &blocks, lag)?;
            }
        }
    }
}

/// Step `n` of [`count_survives_reopening`], on a store opened again for each step.
struct Reopened<'a> {
    step: usize,
    root: &'a mut String,
}

impl StoreVisitor for Reopened<'_> {
    type Output = Result<(), String>;

    fn visit<S: Store + 'static>(self, store: S) -> Result<(), String> {
        let e = |e: triebench_merkle::MerkleError| e.to_string();
        match self.step {
            0 => {
                let trie = MerkleTrie::new(&store).map_err(e)?;
                *self.root = trie.commit(&[set("abcd", b"v")]).map_err(e)?;
                let head = MerkleTrie::at_root(&store, self.root).map_err(e)?;
                let again = head.commit(&[set("abcd", b"v")]).map_err(e)?;
                if again != *self.root {
                    return Err("a no-op commit moved the root".into());
                }
            }
            1 => {
                // The count was read back from disk: this prune keeps the head.
                if !MerkleTrie::prune(&store, self.root).map_err(e)?.is_empty() {
                    return Err("the first prune after reopening released nodes".into());
                }
                read_back(&store, self.root, &[("abcd", Some(b"v"))])?;
            }
            _ => {
                // And the entry, written back without a count, prunes as a tip.
                let removed = MerkleTrie::prune(&store, self.root).map_err(e)?;
                if removed.len() != 3 || MerkleTrie::at_root(&store, self.root).is_ok() {
                    return Err(format!("the second prune removed {removed:?}"));
                }
            }
        }
        Ok(())
    }
}

/// The reached-again count is part of the stored change log: it survives closing and reopening
/// a persistent store between the commit and the prune.
#[test]
fn count_survives_reopening() {
    for profile in [Profile::Lmdb, Profile::SqliteWal] {
        if !profile.is_enabled() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let spec = triebench_kv::BackendSpec::new(profile, Some(dir.path().to_path_buf())).unwrap();
        let mut root = String::new();
        for step in 0..3 {
            let visit = Reopened {
                step,
                root: &mut root,
            };
            let result = spec.open(TABLES, visit).unwrap();
            assert!(result.is_ok(), "{profile}, step {step}: {result:?}");
        }
    }
}

/// A block that restores the mapping of two blocks back (A -> B -> A) re-creates `A`'s entry
/// once the first `A` is pruned; pruning the previous root must then go on releasing, not
/// stop at `B` forever because "its parent" `A` has an entry again.
#[test]
fn pruning_keeps_up_after_a_revert() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut head = MerkleTrie::new(&store)
        .unwrap()
        .commit(&[set("ab", b"1")])
        .unwrap();
    let first = head.clone();
    for (n, value) in [b"2", b"1", b"3", b"4", b"5"].into_iter().enumerate() {
        let previous = head.clone();
        head = MerkleTrie::at_root(&store, &head)
            .unwrap()
            .commit(&[set("ab", value)])
            .unwrap();
        assert_eq!(head == first, n == 1);
        assert!(!MerkleTrie::prune(&store, &previous).unwrap().is_empty());
        let t = MerkleTrie::at_root(&store, &head).unwrap();
        assert_eq!(t.get("ab").unwrap(), Some(value.to_vec()));
        // The head's entry and its additions (stored apart) and nothing else; the head's two
        // nodes, the empty root and the layout marker.
        let count = |t: &str| {
            store
                .reader()
                .unwrap()
                .count(store.table(t).unwrap())
                .unwrap()
        };
        assert_eq!((count("change_log"), count("main")), (2, 4), "block {n}");
    }
}
