//! `MerkleTrie::commit_and_prune` against its reference, a `commit` and then a `prune` in two
//! transactions: after every block of a random history (no-op blocks, failing blocks and
//! reverts included), pruning the head of `lag` blocks ago, both return the same roots and
//! deleted nodes and leave the same bytes in every table. On the in-memory store with many
//! cases, on LMDB and SQLite files with fewer. A failing block or an invalid root to prune
//! writes nothing.

mod common;

use common::{apply, batch, changes_to, contents, del, on_fresh_store, set, Model};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use triebench_kv::btree::BTreeStore;
use triebench_kv::{Profile, Store, StoreVisitor};
use triebench_merkle::{MerkleError, MerkleTrie, StateChange, EMPTY_ROOT, TABLES};

/// One block of a history.
#[derive(Debug, Clone)]
enum Block {
    /// A random batch (it may change nothing, or fail on a delete of an absent address).
    Changes(Vec<StateChange>),
    /// Restores the mapping of the head `n` blocks back (a live root when within the window).
    Revert(prop::sample::Index),
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        5 => batch().prop_map(Block::Changes),
        1 => Just(Block::Changes(Vec::new())),
        2 => any::<prop::sample::Index>().prop_map(Block::Revert),
    ]
}

/// The changes `block` makes on the head of `heads` (the last one).
fn changes_of(block: &Block, heads: &[(String, Model)]) -> Vec<StateChange> {
    match block {
        Block::Changes(changes) => changes.clone(),
        Block::Revert(i) => {
            let model = heads.last().map(|(_, m)| m.clone()).unwrap_or_default();
            changes_to(&model, &heads[i.index(heads.len())].1)
        }
    }
}

/// One step's outcome: the new root and the nodes the prune deleted, or the error's text.
type Step = Result<(String, Vec<String>), String>;

/// Commits `changes` on `head`, then prunes `old` (if any) in a second transaction.
fn separately<S: Store>(store: &S, head: &str, changes: &[StateChange], old: Option<&str>) -> Step {
    let text = |e: MerkleError| e.to_string();
    let root = MerkleTrie::at_root(store, head)
        .and_then(|t| t.commit(changes))
        .map_err(text)?;
    let deleted = match old {
        Some(old) => MerkleTrie::prune(store, old).map_err(text)?,
        None => Vec::new(),
    };
    Ok((root, deleted))
}

/// The same in one transaction.
fn together<S: Store>(store: &S, head: &str, changes: &[StateChange], old: Option<&str>) -> Step {
    let text = |e: MerkleError| e.to_string();
    let trie = MerkleTrie::at_root(store, head).map_err(text)?;
    match old {
        Some(old) => trie.commit_and_prune(changes, old).map_err(text),
        None => trie
            .commit(changes)
            .map(|root| (root, Vec::new()))
            .map_err(text),
    }
}

/// Runs `blocks` on both stores, each block committed on the head and the head of `lag`
/// blocks ago pruned, and compares the two after every block.
fn same_history<A: Store, B: Store>(
    reference: &A,
    store: &B,
    blocks: &[Block],
    lag: usize,
) -> Result<(), TestCaseError> {
    let fail = |e: MerkleError| TestCaseError::fail(e.to_string());
    MerkleTrie::new(reference).map_err(fail)?;
    MerkleTrie::new(store).map_err(fail)?;
    let mut heads: Vec<(String, Model)> = vec![(EMPTY_ROOT.to_string(), Model::new())];
    for (n, block) in blocks.iter().enumerate() {
        let changes = changes_of(block, &heads);
        let (head, model) = heads.last().cloned().unwrap_or_default();
        // After this block's root is pushed, the head `lag` back is pruned (as in
        // `prune_reached_again`'s chain).
        let old = (heads.len() >= lag).then(|| heads[heads.len() - lag].0.clone());
        let want = separately(reference, &head, &changes, old.as_deref());
        let got = together(store, &head, &changes, old.as_deref());
        prop_assert_eq!(&got, &want, "block {}: {:?}", n, changes);
        prop_assert!(
            contents(store) == contents(reference),
            "block {}: the stores differ",
            n
        );
        match (apply(&model, &changes), want) {
            (Some(next), Ok((root, _))) => heads.push((root, next)),
            (None, Err(_)) => {}
            (expected, got) => {
                return Err(TestCaseError::fail(format!(
                    "block {n}: model {expected:?}, trie {got:?}"
                )))
            }
        }
    }
    // The window's heads still read back on the store pruned in one transaction.
    let window = heads.len().saturating_sub(lag);
    for (root, model) in &heads[window..] {
        let trie = MerkleTrie::at_root(store, root).map_err(fail)?;
        let leaves: Model = trie.leaves("").map_err(fail)?.into_iter().collect();
        prop_assert_eq!(&leaves, model, "head {}", root);
    }
    Ok(())
}

/// [`same_history`] against a `BTreeStore` reference, on a fresh store of one profile.
struct OnProfile<'b> {
    blocks: &'b [Block],
    lag: usize,
}

impl StoreVisitor for OnProfile<'_> {
    type Output = Result<(), TestCaseError>;

    fn visit<S: Store + 'static>(self, store: S) -> Result<(), TestCaseError> {
        let reference = BTreeStore::open(TABLES).map_err(|e| TestCaseError::fail(e.to_string()))?;
        same_history(&reference, &store, self.blocks, self.lag)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn one_transaction_leaves_what_two_leave(
        blocks in proptest::collection::vec(block(), 1..30),
        lag in 1usize..=3,
    ) {
        let reference = BTreeStore::open(TABLES).unwrap();
        let store = BTreeStore::open(TABLES).unwrap();
        same_history(&reference, &store, &blocks, lag)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// The same on LMDB and SQLite files (fewer cases: each opens a store on disk).
    #[test]
    fn one_transaction_leaves_what_two_leave_on_disk(
        blocks in proptest::collection::vec(block(), 1..20),
        lag in 1usize..=2,
    ) {
        for profile in [Profile::Lmdb, Profile::SqliteWalFull] {
            if !profile.is_enabled() {
                continue;
            }
            on_fresh_store(profile, OnProfile { blocks: &blocks, lag })?;
        }
    }
}

/// A chain of blocks each pruning the root it built on: only the head's nodes and its
/// change-log entry remain, as after the same in two transactions.
#[test]
fn keeping_one_root_deletes_each_replaced_path() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let first = trie
        .commit(&[set("ab00", b"1"), set("ab01", b"2")])
        .unwrap();
    trie.set_root(&first).unwrap();
    let (second, deleted) = trie.commit_and_prune(&[set("ab00", b"3")], &first).unwrap();
    // The old leaf, `ab`'s node and the old root.
    assert_eq!(deleted.len(), 3, "{deleted:?}");
    assert!(deleted.contains(&first));
    assert!(MerkleTrie::at_root(&store, &first).is_err());
    let head = MerkleTrie::at_root(&store, &second).unwrap();
    assert_eq!(head.get("ab00").unwrap(), Some(b"3".to_vec()));
    assert_eq!(head.get("ab01").unwrap(), Some(b"2".to_vec()));
    assert!(MerkleTrie::change_log(&store, &first).unwrap().is_none());
    assert!(MerkleTrie::change_log(&store, &second).unwrap().is_some());
}

/// A commit that fails, or a root to prune that is not a hash, writes nothing: not the
/// commit's nodes, not the prune.
#[test]
fn an_error_in_either_part_writes_nothing() {
    let store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let first = trie.commit(&[set("ab00", b"1")]).unwrap();
    trie.set_root(&first).unwrap();
    let before = contents(&store);

    let failing = trie.commit_and_prune(&[set("cd00", b"2"), del("ee00")], &first);
    assert!(
        matches!(failing, Err(MerkleError::DeleteAbsent { .. })),
        "{failing:?}"
    );
    assert!(contents(&store) == before, "a failed commit wrote");

    let invalid = trie.commit_and_prune(&[set("cd00", b"2")], "not a root");
    assert!(
        matches!(invalid, Err(MerkleError::InvalidHash { .. })),
        "{invalid:?}"
    );
    assert!(contents(&store) == before, "an invalid prune root wrote");
}

/// `TrieState`'s owned handle does the same as the view.
#[test]
fn the_owned_handle_commits_and_prunes_alike() {
    let view_store = BTreeStore::open(TABLES).unwrap();
    let mut trie = MerkleTrie::new(&view_store).unwrap();
    let first = trie
        .commit(&[set("ab00", b"1"), set("ab01", b"2")])
        .unwrap();
    trie.set_root(&first).unwrap();
    let want = trie.commit_and_prune(&[set("ab00", b"3")], &first).unwrap();

    let state = triebench_merkle::TrieState::new(BTreeStore::open(TABLES).unwrap()).unwrap();
    let first_again = state
        .commit(EMPTY_ROOT, &[set("ab00", b"1"), set("ab01", b"2")])
        .unwrap();
    assert_eq!(first_again, first);
    let got = state
        .commit_and_prune(&first, &[set("ab00", b"3")], &first)
        .unwrap();
    assert_eq!(got, want);
    assert!(state.change_log(&first).unwrap().is_none());
}
