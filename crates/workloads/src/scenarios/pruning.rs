//! The four pruning scenarios. Each builds the same small parent trie (three leaves under `ab`),
//! derives successors from it, prunes one root and checks exactly which node hashes went (named
//! by the reference model) and that the roots that remain still read back whole.

use std::collections::BTreeMap;

use triebench_kv::Store;

use super::check::{expect_count, expect_eq, expect_model_root};
use super::run::Run;
use super::{set, state_of, Outcome};
use crate::WorkloadError;

/// Root of the parent trie (DESIGN.md vector).
const PARENT_ROOT: &str = "19fcc3dfc5173fb3b12b55086f02c11f42a645a58da9a3f28d47b174946c0e3d";

/// The pruning scenarios' parent trie: Transact's `ab0000`/`ab0a01`/`abff00` =
/// "0001"/"0002"/"0003", as (address, value).
pub const PARENT: [(&str, &str); 3] = [("ab0000", "0001"), ("ab0a01", "0002"), ("abff00", "0003")];

/// `state` with `changes` applied.
fn with(state: &BTreeMap<String, Vec<u8>>, changes: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    let mut next = state.clone();
    next.extend(state_of(changes));
    next
}

/// Commits the parent trie in one commit from the empty root and checks its root.
fn commit_parent<S: Store>(
    run: &mut Run<'_, S>,
) -> Result<(String, BTreeMap<String, Vec<u8>>), WorkloadError> {
    let trie = run.trie()?;
    let changes: Vec<_> = PARENT.iter().map(|(a, v)| set(a, v.as_bytes())).collect();
    let root = run.commit(&trie, &changes)?;
    expect_eq("parent root", PARENT_ROOT, &root)?;
    Ok((root, state_of(&PARENT)))
}

/// Commits `changes` on top of `from` (whose content is `state`) and checks the root against
/// the model; returns the new root and content.
fn commit_successor<S: Store>(
    run: &mut Run<'_, S>,
    what: &str,
    from: &str,
    state: &BTreeMap<String, Vec<u8>>,
    changes: &[(&str, &str)],
) -> Result<(String, BTreeMap<String, Vec<u8>>), WorkloadError> {
    let sets: Vec<_> = changes.iter().map(|(a, v)| set(a, v.as_bytes())).collect();
    let root = run.commit_at(from, &sets)?;
    let next = with(state, changes);
    expect_model_root(what, &next, &root)?;
    Ok((root, next))
}

/// The model's hashes of `state`'s nodes at `paths`.
fn hashes_at(
    state: &BTreeMap<String, Vec<u8>>,
    paths: &[&str],
) -> Result<Vec<String>, WorkloadError> {
    let hashes = triebench_merkle::reference::node_hashes(state)?;
    Ok(paths
        .iter()
        .filter_map(|p| hashes.get(*p).cloned())
        .collect())
}

/// Transact's `merkle_trie_pruning_parent`: a successor changes `ab0000`; pruning the parent
/// removes what the successor replaced (the parent's `ab`, `ab00`, `ab0000` nodes) plus the
/// parent's root node, so the parent root is gone and the successor reads whole.
pub(super) fn parent<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let (parent_root, parent) = commit_parent(&mut run)?;
    let trie = run.trie_at(&parent_root)?;
    let log = run.expect_change_log(&parent_root)?;
    log.expect_successors("the parent", &[])?;
    for (address, value) in &parent {
        run.expect_value(&trie, address, Some(value))?;
    }

    let (successor_root, successor) = commit_successor(
        &mut run,
        "successor root",
        &parent_root,
        &parent,
        &[("ab0000", "test")],
    )?;
    let parent_log = run.expect_change_log(&parent_root)?;
    let deletions = parent_log.expect_successors("the parent", &[&successor_root])?;
    let successor_log = run.expect_change_log(&successor_root)?;
    expect_eq(
        "parent in the successor's change log",
        &parent_root,
        &successor_log.parent,
    )?;
    let trie = run.trie_at(&successor_root)?;

    let removed = run.prune(&parent_root)?;
    // Transact: what the successor replaced, plus the parent's root node.
    expect_count(
        "hashes removed by pruning the parent",
        deletions.iter().sum::<usize>() + 1,
        removed.len(),
    )?;
    let expected = hashes_at(&parent, &["", "ab", "ab00", "ab0000"])?;
    run.expect_pruned("pruning the parent", &expected, &removed)?;
    run.expect_no_change_log(&parent_root, "the pruned parent")?;
    run.expect_unknown_root(&parent_root, "the pruned parent root")?;
    run.expect_leaves(&trie, &successor)?;
    Ok(run.finish(&successor_root))
}

/// Transact's `merkle_trie_pruning_successors`: two successors of one parent (`ab0000` = "left",
/// `ab0a01` = "right"); pruning the left one removes its four additions, its root is gone, and
/// the parent and the right successor read whole.
pub(super) fn successors<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let (parent_root, parent) = commit_parent(&mut run)?;
    let parent_trie = run.trie_at(&parent_root)?;
    for (address, value) in &parent {
        run.expect_value(&parent_trie, address, Some(value))?;
    }

    let (left_root, left) = commit_successor(
        &mut run,
        "left successor root",
        &parent_root,
        &parent,
        &[("ab0000", "left")],
    )?;
    let (right_root, right) = commit_successor(
        &mut run,
        "right successor root",
        &parent_root,
        &parent,
        &[("ab0a01", "right")],
    )?;

    let parent_log = run.expect_change_log(&parent_root)?;
    parent_log.expect_successors("the parent", &[&left_root, &right_root])?;
    let left_log = run.expect_change_log(&left_root)?;
    run.expect_change_log(&right_root)?;

    let removed = run.prune(&left_root)?;
    // Transact: all of the tip's additions.
    expect_count(
        "hashes removed by pruning the left successor",
        left_log.additions,
        removed.len(),
    )?;
    let expected = hashes_at(&left, &["", "ab", "ab00", "ab0000"])?;
    run.expect_pruned("pruning the left successor", &expected, &removed)?;
    let parent_log = run.expect_change_log(&parent_root)?;
    parent_log.expect_successors(
        "the parent after pruning the left successor",
        &[&right_root],
    )?;
    run.expect_no_change_log(&left_root, "the pruned left successor")?;
    run.expect_unknown_root(&left_root, "the pruned left successor root")?;
    run.expect_leaves(&parent_trie, &parent)?;
    let right_trie = run.trie_at(&right_root)?;
    run.expect_leaves(&right_trie, &right)?;
    Ok(run.finish(&parent_root))
}

/// The parent, a middle successor (`ab0000` = "change0", new `ab0001` = "change1") and a last
/// successor setting `ab0000` back to "0001", which re-creates the parent's leaf node.
struct Lineage {
    parent_root: String,
    parent: BTreeMap<String, Vec<u8>>,
    middle_root: String,
    last_root: String,
    last: BTreeMap<String, Vec<u8>>,
}

fn commit_lineage<S: Store>(run: &mut Run<'_, S>) -> Result<Lineage, WorkloadError> {
    let (parent_root, parent) = commit_parent(run)?;
    let (middle_root, middle) = commit_successor(
        run,
        "middle successor root",
        &parent_root,
        &parent,
        &[("ab0000", "change0"), ("ab0001", "change1")],
    )?;
    let (last_root, last) = commit_successor(
        run,
        "last successor root",
        &middle_root,
        &middle,
        &[("ab0000", "0001")],
    )?;
    Ok(Lineage {
        parent_root,
        parent,
        middle_root,
        last_root,
        last,
    })
}

/// Transact's `merkle_trie_pruning_duplicate_leaves`: pruning the parent removes the parent's
/// root, `ab` and `ab00` nodes but not its `ab0000` leaf, which the last successor re-created;
/// the last successor still reads `ab0000` = "0001".
pub(super) fn duplicate_leaves<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let lineage = commit_lineage(&mut run)?;
    let trie = run.trie_at(&lineage.last_root)?;

    let parent_log = run.expect_change_log(&lineage.parent_root)?;
    let deletions = parent_log.expect_successors("the parent", &[&lineage.middle_root])?;

    let removed = run.prune(&lineage.parent_root)?;
    // Transact: what the middle successor replaced plus the parent's root node, less the leaf
    // the last successor re-created.
    expect_count(
        "hashes removed by pruning the parent",
        deletions.iter().sum::<usize>(),
        removed.len(),
    )?;
    let expected = hashes_at(&lineage.parent, &["", "ab", "ab00"])?;
    run.expect_pruned("pruning the parent", &expected, &removed)?;
    run.expect_unknown_root(&lineage.parent_root, "the pruned parent root")?;
    run.expect_value(&trie, "ab0000", Some(b"0001"))?;
    run.expect_leaves(&trie, &lineage.last)?;
    Ok(run.finish(&lineage.last_root))
}

/// Transact's `merkle_trie_pruning_successor_duplicate_leaves`: pruning the last successor (a
/// tip) removes its additions except the `ab0000` leaf it shares with the parent; the parent
/// still reads `ab0000` = "0001".
pub(super) fn successor_duplicate_leaves<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let lineage = commit_lineage(&mut run)?;
    let trie = run.trie_at(&lineage.parent_root)?;

    let last_log = run.expect_change_log(&lineage.last_root)?;

    let removed = run.prune(&lineage.last_root)?;
    // Transact: the tip's additions less the leaf it shares with the parent.
    expect_count(
        "hashes removed by pruning the last successor",
        last_log.additions.saturating_sub(1),
        removed.len(),
    )?;
    let expected = hashes_at(&lineage.last, &["", "ab", "ab00"])?;
    run.expect_pruned("pruning the last successor", &expected, &removed)?;
    run.expect_unknown_root(&lineage.last_root, "the pruned last successor root")?;
    run.expect_value(&trie, "ab0000", Some(b"0001"))?;
    run.expect_leaves(&trie, &lineage.parent)?;
    Ok(run.finish(&lineage.parent_root))
}
