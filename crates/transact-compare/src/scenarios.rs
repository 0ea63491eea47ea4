//! Transact's ten `merkle_trie_*` scenarios over a [`TransactState`], with the same data as
//! `triebench_workloads::scenarios` (addresses, values, the seeded `update` batch). Each checks
//! the roots the DESIGN vectors fix and reads its values back, so a timed run is also a correct
//! one; the change-log and pruned-hash checks of triebench's versions need Transact internals
//! and are left out (the work timed is the same).

use std::collections::BTreeMap;

use triebench_workloads::rng::XorShift64Star;
use triebench_workloads::scenarios::{ASDFG, BNMVC, HJKLK, QWERT, YUIOP, ZXCVB};
use triebench_workloads::{
    update_address, update_key, Scenario, UPDATE_FINAL_ROOT, UPDATE_LOADED_ROOT, UPDATE_SEED,
};

use crate::{Change, TransactError, TransactState};

const EMPTY_ROOT: &str = "708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6";
const ABCD_ROOT: &str = "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870";
const DELETABLE_ROOT: &str = "db73865199b319863790ff8505098b3302d4a10595a809c465364e55ff9e2fac";
const PARENT_ROOT: &str = "19fcc3dfc5173fb3b12b55086f02c11f42a645a58da9a3f28d47b174946c0e3d";
const PARENT: [(&str, &str); 3] = [("ab0000", "0001"), ("ab0a01", "0002"), ("abff00", "0003")];

/// Runs `scenario` on `state`, which must be fresh.
pub fn run(scenario: Scenario, state: &dyn TransactState) -> Result<String, TransactError> {
    match scenario {
        Scenario::EmptyChanges => empty_changes(state),
        Scenario::RootAdvance => root_advance(state),
        Scenario::Delete => delete(state),
        Scenario::Update => update(state),
        Scenario::UpdateSameAddressSpace => {
            let all = [ASDFG, QWERT, ZXCVB, YUIOP, HJKLK, BNMVC];
            same_space(state, &all, &all, &[YUIOP, HJKLK, BNMVC])
        }
        Scenario::UpdateSameAddressSpaceWithNoChildren => same_space(
            state,
            &[QWERT, ZXCVB, YUIOP, HJKLK, BNMVC],
            &[ASDFG],
            &[YUIOP, HJKLK, BNMVC],
        ),
        Scenario::PruningParent => pruning(state, &[&[("ab0000", "test")]], Prune::Parent),
        Scenario::PruningSuccessors => pruning(
            state,
            &[&[("ab0000", "left")], &[("ab0a01", "right")]],
            Prune::FirstSuccessor,
        ),
        Scenario::PruningDuplicateLeaves => pruning(
            state,
            &[
                &[("ab0000", "change0"), ("ab0001", "change1")],
                &[("ab0000", "0001")],
            ],
            Prune::Parent,
        ),
        Scenario::PruningSuccessorDuplicateLeaves => pruning(
            state,
            &[
                &[("ab0000", "change0"), ("ab0001", "change1")],
                &[("ab0000", "0001")],
            ],
            Prune::LastSuccessor,
        ),
    }
}

fn expect(what: &str, expected: &str, actual: &str) -> Result<(), TransactError> {
    if expected == actual {
        Ok(())
    } else {
        Err(TransactError::Mismatch {
            what: what.to_string(),
            expected: expected.to_string(),
            actual: actual.to_string(),
        })
    }
}

/// Reads every address of `content` under `root` and compares (missing = `None`).
fn expect_content(
    state: &dyn TransactState,
    root: &str,
    content: &BTreeMap<String, Option<Vec<u8>>>,
) -> Result<(), TransactError> {
    let addresses: Vec<String> = content.keys().cloned().collect();
    let got = state.get(root, &addresses)?;
    for (address, want) in content {
        let have = got.get(address);
        if have != want.as_ref() {
            return Err(TransactError::Mismatch {
                what: format!("value at {address} under {}", &root[..8]),
                expected: format!("{:?}", want.as_ref().map(|v| String::from_utf8_lossy(v))),
                actual: format!("{:?}", have.map(|v| String::from_utf8_lossy(v))),
            });
        }
    }
    Ok(())
}

fn empty_changes(state: &dyn TransactState) -> Result<String, TransactError> {
    let root = state.initial_root().to_string();
    expect("initial root", EMPTY_ROOT, &root)?;
    expect("root of no changes", &root, &state.compute(&root, &[])?)?;
    Ok(root)
}

fn root_advance(state: &dyn TransactState) -> Result<String, TransactError> {
    let root = state.commit(state.initial_root(), &[Change::set("abcd", b"data_value")])?;
    expect("root after committing abcd", ABCD_ROOT, &root)?;
    let content = BTreeMap::from([("abcd".to_string(), Some(b"data_value".to_vec()))]);
    expect_content(state, &root, &content)?;
    Ok(root)
}

fn delete(state: &dyn TransactState) -> Result<String, TransactError> {
    let root = state.commit(state.initial_root(), &[Change::set("1234", b"deletable")])?;
    expect("root after setting 1234", DELETABLE_ROOT, &root)?;
    if state.commit(&root, &[Change::delete("barf")]).is_ok() {
        return Err(TransactError::Mismatch {
            what: "deleting the unknown `barf`".into(),
            expected: "an error".into(),
            actual: "a root".into(),
        });
    }
    let deleted = state.commit(&root, &[Change::delete("1234")])?;
    let gone = BTreeMap::from([("1234".to_string(), None)]);
    expect_content(state, &deleted, &gone)?;
    let kept = BTreeMap::from([("1234".to_string(), Some(b"deletable".to_vec()))]);
    expect_content(state, &root, &kept)?;
    Ok(deleted)
}

fn update(state: &dyn TransactState) -> Result<String, TransactError> {
    let mut root = state.initial_root().to_string();
    let mut content = BTreeMap::new();
    for i in 0..1000 {
        let (key, address) = (update_key(i), update_address(i));
        root = state.commit(&root, &[Change::set(&address, key.as_bytes())])?;
        content.insert(address, Some(key.into_bytes()));
    }
    expect("root after 1000 commits", UPDATE_LOADED_ROOT, &root)?;
    // The same batch as triebench_workloads: 50 of 0..500 set to "5.0", 50 of 500..1000 deleted.
    let mut rng = XorShift64Star::new(UPDATE_SEED);
    let sets = rng.choose_multiple(0..500, 50);
    let deletes = rng.choose_multiple(500..1000, 50);
    let mut changes = Vec::with_capacity(100);
    for i in sets {
        changes.push(Change::set(&update_address(i), b"5.0"));
        content.insert(update_address(i), Some(b"5.0".to_vec()));
    }
    for i in deletes {
        changes.push(Change::delete(&update_address(i)));
        content.insert(update_address(i), None);
    }
    let computed = state.compute(&root, &changes)?;
    let root = state.commit(&root, &changes)?;
    expect("committed root vs computed root", &computed, &root)?;
    expect("root after the batch", UPDATE_FINAL_ROOT, &root)?;
    expect_content(state, &root, &content)?;
    Ok(root)
}

fn same_space(
    state: &dyn TransactState,
    initial: &[(&str, &str)],
    updated: &[(&str, &str)],
    deleted: &[(&str, &str)],
) -> Result<String, TransactError> {
    let mut root = state.initial_root().to_string();
    let mut content = BTreeMap::new();
    for (name, address) in initial {
        root = state.commit(&root, &[Change::set(address, name.as_bytes())])?;
        content.insert(address.to_string(), Some(name.as_bytes().to_vec()));
    }
    let mut changes = Vec::new();
    for (_, address) in updated {
        changes.push(Change::set(address, b"2.0"));
        content.insert(address.to_string(), Some(b"2.0".to_vec()));
    }
    for (_, address) in deleted {
        changes.push(Change::delete(address));
        content.insert(address.to_string(), None);
    }
    let computed = state.compute(&root, &changes)?;
    let root = state.commit(&root, &changes)?;
    expect("committed root vs computed root", &computed, &root)?;
    expect_content(state, &root, &content)?;
    Ok(root)
}

/// Which root a pruning scenario prunes.
enum Prune {
    Parent,
    FirstSuccessor,
    LastSuccessor,
}

/// Commits the parent trie, then each of `successors` (on the parent for [`Prune::FirstSuccessor`],
/// else as a chain), prunes one root and reads the remaining tip back.
fn pruning(
    state: &dyn TransactState,
    successors: &[&[(&str, &str)]],
    prune: Prune,
) -> Result<String, TransactError> {
    let parent: Vec<Change> = PARENT
        .iter()
        .map(|(a, v)| Change::set(a, v.as_bytes()))
        .collect();
    let parent_root = state.commit(state.initial_root(), &parent)?;
    expect("parent root", PARENT_ROOT, &parent_root)?;
    let mut content: BTreeMap<String, Option<Vec<u8>>> = PARENT
        .iter()
        .map(|(a, v)| (a.to_string(), Some(v.as_bytes().to_vec())))
        .collect();
    let mut roots = vec![parent_root.clone()];
    let mut tip_content = content.clone();
    for changes in successors {
        let from = match prune {
            Prune::FirstSuccessor => &parent_root,
            _ => roots.last().unwrap_or(&parent_root),
        };
        let sets: Vec<Change> = changes
            .iter()
            .map(|(a, v)| Change::set(a, v.as_bytes()))
            .collect();
        let root = state.commit(from, &sets)?;
        let mut next = if matches!(prune, Prune::FirstSuccessor) {
            content.clone()
        } else {
            tip_content.clone()
        };
        for (a, v) in *changes {
            next.insert(a.to_string(), Some(v.as_bytes().to_vec()));
        }
        roots.push(root);
        tip_content = next;
    }
    let (pruned, keep, keep_content) = match prune {
        Prune::Parent => (
            parent_root.clone(),
            roots[roots.len() - 1].clone(),
            tip_content,
        ),
        Prune::FirstSuccessor => {
            // Prune the left successor; the right one (last) stays whole.
            (
                roots[1].clone(),
                roots[roots.len() - 1].clone(),
                tip_content,
            )
        }
        Prune::LastSuccessor => {
            let before = roots[roots.len() - 2].clone();
            content = BTreeMap::new();
            // The content under `before` is the chain minus the last successor's changes.
            let mut chain = PARENT
                .iter()
                .map(|(a, v)| (a.to_string(), Some(v.as_bytes().to_vec())))
                .collect::<BTreeMap<_, _>>();
            for changes in &successors[..successors.len() - 1] {
                for (a, v) in *changes {
                    chain.insert(a.to_string(), Some(v.as_bytes().to_vec()));
                }
            }
            content.extend(chain);
            (roots[roots.len() - 1].clone(), before, content)
        }
    };
    state.prune(&[pruned])?;
    expect_content(state, &keep, &keep_content)?;
    Ok(keep)
}
