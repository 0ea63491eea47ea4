//! `empty_changes`, `root_advance` and `delete`: one or two single-key commits each.

use triebench_kv::Store;
use triebench_merkle::{MerkleError, EMPTY_ROOT};

use super::check::{expect_count, expect_eq, expect_ne, short};
use super::run::Run;
use super::{delete as del, set, Outcome};
use crate::WorkloadError;

/// Root of `abcd` = "data_value" (DESIGN.md vector).
const ABCD_ROOT: &str = "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870";
/// Root of `1234` = "deletable" (DESIGN.md vector).
const DELETABLE_ROOT: &str = "db73865199b319863790ff8505098b3302d4a10595a809c465364e55ff9e2fac";

/// Transact's `merkle_trie_empty_changes`: computing the root of no changes from the initial
/// root gives the initial root back.
pub(super) fn empty_changes<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let run = Run::new(store);
    let trie = run.trie()?;
    expect_eq("initial root", EMPTY_ROOT, trie.root())?;
    let computed = trie.compute(&[])?;
    expect_eq("root computed from no changes", trie.root(), &computed)?;
    Ok(run.finish(&computed))
}

/// Transact's `merkle_trie_root_advance`: commit `abcd` = "data_value"; the trie stays at the
/// original root (which still lacks the value) until it is moved to the new one, which has it.
pub(super) fn root_advance<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let mut trie = run.trie()?;
    let orig = trie.root().to_string();
    run.expect_no_change_log(&orig, "the initial root")?;

    let new_root = run.commit(&trie, &[set("abcd", b"data_value")])?;
    expect_eq(
        "trie root after a commit (commit must not move it)",
        &orig,
        trie.root(),
    )?;
    expect_ne("root after committing abcd", &orig, &new_root)?;
    expect_eq("root after committing abcd", ABCD_ROOT, &new_root)?;
    run.expect_value(&trie, "abcd", None)?;

    // The new root's change log: its parent, the three nodes it added (root, `ab`, `abcd`), and
    // no successors yet.
    let log = run.expect_change_log(&new_root)?;
    expect_eq("parent in the new root's change log", &orig, &log.parent)?;
    expect_count("additions in the new root's change log", 3, log.additions)?;
    expect_count(
        "successors in the new root's change log",
        0,
        log.successors.len(),
    )?;

    trie.set_root(&new_root)?;
    expect_eq("trie root after set_root", &new_root, trie.root())?;
    run.expect_value(&trie, "abcd", Some(b"data_value"))?;
    Ok(run.finish(&new_root))
}

/// Transact's `merkle_trie_delete`: set `1234`, fail to delete the unknown `barf`, delete `1234`;
/// the old root still has the value, the new one does not (and is the empty root again).
pub(super) fn delete<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let init = run.trie()?;
    let new_root = run.commit(&init, &[set("1234", b"deletable")])?;
    expect_eq("root after setting 1234", DELETABLE_ROOT, &new_root)?;
    let mut trie = run.trie_at(&new_root)?;
    run.expect_value(&trie, "1234", Some(b"deletable"))?;

    // Deleting an unknown key must fail (Transact only asserts an error; `barf` is not even hex).
    match trie.commit(&[del("barf")]) {
        Err(MerkleError::InvalidAddress { .. } | MerkleError::DeleteAbsent { .. }) => {}
        Err(other) => return Err(other.into()),
        Ok(root) => {
            return Err(WorkloadError::Mismatch {
                what: format!("deleting unknown address barf from {}", short(&new_root)),
                expected: "an error".to_string(),
                got: format!("new root {root}"),
            })
        }
    }

    let del_root = run.commit(&trie, &[del("1234")])?;
    expect_eq(
        "root after deleting the only address",
        EMPTY_ROOT,
        &del_root,
    )?;
    // The committed deletion leaves the old root untouched.
    run.expect_value(&trie, "1234", Some(b"deletable"))?;
    trie.set_root(&del_root)?;
    run.expect_value(&trie, "1234", None)?;
    run.reads += 1;
    if trie.contains("1234")? {
        return Err(WorkloadError::Mismatch {
            what: format!("contains(1234) under root {}", short(&del_root)),
            expected: "false".to_string(),
            got: "true".to_string(),
        });
    }
    Ok(run.finish(&del_root))
}
