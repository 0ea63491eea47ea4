//! Transact's ten `merkle_trie_*` scenarios as reusable workloads.
//!
//! Each workload takes a fresh store opened with [`triebench_merkle::TABLES`], does the same
//! commits, reads and prunes as the Transact test of the same name, and checks what that test
//! asserts (roots, values, change logs, pruned hashes), plus the roots our reference
//! [reference model](triebench_merkle::reference::root_of) gives for the same content. A failed check is a
//! [`WorkloadError::Mismatch`], never a panic, so the benches can time a workload and the tests
//! can assert it returned `Ok`.
//!
//! The scenario contents come from Transact's `libtransact/tests/state/merkle/mod.rs`; their
//! names are [`triebench_record::vocabulary::SCENARIOS`], which the report lays out its tables
//! with (it needs no workloads).

mod basic;
mod check;
mod pruning;
mod run;
mod update;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use triebench_kv::Store;
use triebench_merkle::StateChange;
use triebench_record::vocabulary;

use crate::WorkloadError;

pub use pruning::PARENT as PRUNING_PARENT;
pub use update::{
    update_address, update_commits, update_key, ASDFG, BNMVC, HJKLK, QWERT, UPDATE_FINAL_ROOT,
    UPDATE_KEYS, UPDATE_LOADED_ROOT, UPDATE_SEED, YUIOP, ZXCVB,
};

/// What a workload did, for benches to report rates and for tests to inspect. Two runs that did
/// the same have equal [`Outcome::what_it_did`]; their laps' times differ.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The root the scenario finishes at (the one its reads were made under).
    pub root: String,
    /// Successful commits (failed ones that the scenario provokes are not counted).
    pub commits: usize,
    /// Point reads (`get` / `contains`), hits and misses alike.
    pub reads: usize,
    /// Node hashes removed by pruning.
    pub pruned: usize,
    /// Every commit, read and prune with its wall time, in order: samples within one run
    /// (`triebench headline` makes confidence intervals from the repeated ones).
    pub laps: Vec<Lap>,
}

impl Outcome {
    /// Everything but the times: the final root, the counts and the kind of every step in
    /// order (what any two runs of a scenario, on any backend, must agree on).
    pub fn what_it_did(&self) -> (&str, usize, usize, usize, Vec<Step>) {
        (
            &self.root,
            self.commits,
            self.reads,
            self.pruned,
            self.laps.iter().map(|l| l.step).collect(),
        )
    }
}

/// One timed step of a scenario run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lap {
    /// What the step did.
    pub step: Step,
    /// Its wall time (the trie's call, checks excluded).
    pub elapsed: Duration,
}

/// The kind of a [`Lap`]: steps of one kind cost alike, so their times are comparable samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// A commit of this many changes.
    Commit {
        /// Sets and deletes in the commit.
        changes: usize,
    },
    /// A point read (hit or miss).
    Read,
    /// Pruning one root.
    Prune,
}

/// One of Transact's ten merkle scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scenario {
    /// Computing the root of an empty change list gives the same root back.
    EmptyChanges,
    /// A commit makes a new root without moving the trie; moving it shows the value.
    RootAdvance,
    /// Set then delete one address; deleting an unknown address fails; old roots keep values.
    Delete,
    /// 1000 single-key commits, one commit of 50 sets + 50 deletes, 950 reads and 50 misses.
    Update,
    /// Sets and deletes sharing an address prefix in one commit.
    UpdateSameAddressSpace,
    /// Like `UpdateSameAddressSpace`, where the deleted address's parent has no other children.
    UpdateSameAddressSpaceWithNoChildren,
    /// Prune a parent root with one successor: what the successor replaced goes.
    PruningParent,
    /// Prune one of two successors: its unshared additions go; the rest stays readable.
    PruningSuccessors,
    /// Prune a parent whose replaced leaf reappears later: the duplicate leaf stays.
    PruningDuplicateLeaves,
    /// Prune a tip that re-created a leaf of an older root: the leaf stays.
    PruningSuccessorDuplicateLeaves,
}

/// Every scenario, in the order Transact's test file defines them: the variants' order, which is
/// that of [`vocabulary::SCENARIOS`] (one name per scenario, so the array's length is the
/// table's).
pub const SCENARIOS: [Scenario; vocabulary::SCENARIOS.len()] = [
    Scenario::EmptyChanges,
    Scenario::RootAdvance,
    Scenario::Delete,
    Scenario::Update,
    Scenario::UpdateSameAddressSpace,
    Scenario::UpdateSameAddressSpaceWithNoChildren,
    Scenario::PruningParent,
    Scenario::PruningSuccessors,
    Scenario::PruningDuplicateLeaves,
    Scenario::PruningSuccessorDuplicateLeaves,
];

impl Scenario {
    /// The scenario's name (Transact's test name without the `merkle_trie_` prefix): the entry
    /// of [`vocabulary::SCENARIOS`] at the variant's position, which is its position in
    /// [`SCENARIOS`].
    pub const fn name(self) -> &'static str {
        vocabulary::SCENARIOS[self as usize]
    }

    /// Runs the scenario on `store`, which must be fresh (nothing committed) and opened with
    /// [`triebench_merkle::TABLES`].
    pub fn run<S: Store>(self, store: &S) -> Result<Outcome, WorkloadError> {
        match self {
            Scenario::EmptyChanges => basic::empty_changes(store),
            Scenario::RootAdvance => basic::root_advance(store),
            Scenario::Delete => basic::delete(store),
            Scenario::Update => update::update(store),
            Scenario::UpdateSameAddressSpace => update::same_address_space(store),
            Scenario::UpdateSameAddressSpaceWithNoChildren => {
                update::same_address_space_with_no_children(store)
            }
            Scenario::PruningParent => pruning::parent(store),
            Scenario::PruningSuccessors => pruning::successors(store),
            Scenario::PruningDuplicateLeaves => pruning::duplicate_leaves(store),
            Scenario::PruningSuccessorDuplicateLeaves => pruning::successor_duplicate_leaves(store),
        }
    }

    /// Every valid name, comma-separated, for error messages.
    pub fn valid_names() -> String {
        SCENARIOS.map(Scenario::name).join(", ")
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scenario {
    type Err = WorkloadError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        SCENARIOS
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| WorkloadError::UnknownScenario {
                name: name.to_string(),
                valid: Scenario::valid_names(),
            })
    }
}

/// Runs the scenario called `name` on `store` (fresh, opened with
/// [`triebench_merkle::TABLES`]). An unknown name lists the valid ones.
pub fn run_scenario<S: Store>(name: &str, store: &S) -> Result<Outcome, WorkloadError> {
    name.parse::<Scenario>()?.run(store)
}

/// A `Set` change.
fn set(address: &str, value: &[u8]) -> StateChange {
    StateChange::Set {
        address: address.to_string(),
        value: value.to_vec(),
    }
}

/// A `Delete` change.
fn delete(address: &str) -> StateChange {
    StateChange::Delete {
        address: address.to_string(),
    }
}

/// A state (address → value) built from string pairs, for the model.
fn state_of(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    pairs
        .iter()
        .map(|(a, v)| ((*a).to_string(), v.as_bytes().to_vec()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::check::{expect_model_root, show_value};
    use super::run::Run;
    use super::*;

    #[test]
    fn names_are_transacts_and_round_trip() {
        // Transact's test names, in its test file's order, written out: the spec the record's
        // table must meet (a renamed entry there fails here).
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "empty_changes",
                "root_advance",
                "delete",
                "update",
                "update_same_address_space",
                "update_same_address_space_with_no_children",
                "pruning_parent",
                "pruning_successors",
                "pruning_duplicate_leaves",
                "pruning_successor_duplicate_leaves",
            ]
        );
        for s in SCENARIOS {
            assert_eq!(s.name().parse::<Scenario>().unwrap(), s);
        }
        let err = "updates".parse::<Scenario>().unwrap_err().to_string();
        assert!(err.contains("unknown scenario `updates`"), "{err}");
        assert!(err.contains("pruning_successor_duplicate_leaves"), "{err}");
    }

    /// The checks report what went wrong as typed mismatches instead of panicking.
    #[test]
    fn failed_checks_are_typed_mismatches() {
        let store = triebench_kv::btree::BTreeStore::open(triebench_merkle::TABLES).unwrap();
        let mut run = Run::new(&store);
        let empty = run.trie().unwrap();
        let root = run.commit(&empty, &[set("abcd", b"data_value")]).unwrap();
        let trie = run.trie_at(&root).unwrap();

        let err = run.expect_value(&trie, "abcd", Some(b"other")).unwrap_err();
        match &err {
            WorkloadError::Mismatch {
                what,
                expected,
                got,
            } => {
                assert!(what.contains("abcd"), "{err}");
                assert_eq!(expected, "\"other\"");
                assert_eq!(got, "\"data_value\"");
            }
            other => panic!("expected a mismatch, got {other}"),
        }
        let mismatch =
            |r: Result<(), WorkloadError>| matches!(r, Err(WorkloadError::Mismatch { .. }));
        assert!(mismatch(run.expect_unknown_root(&root, "a committed root")));
        assert!(mismatch(run.expect_leaves(&trie, &BTreeMap::new())));
        assert!(mismatch(run.expect_pruned(
            "nothing",
            std::slice::from_ref(&root),
            &[]
        )));
        assert!(mismatch(
            run.expect_no_change_log(&root, "a committed root")
        ));
        assert!(mismatch(expect_model_root(
            "root",
            &state_of(&[("abcd", "x")]),
            &root
        )));
        let log = run.expect_change_log(&root).unwrap();
        assert!(log.expect_successors("the root", &[&root]).is_err());

        // And they pass when the expectation holds.
        run.expect_value(&trie, "abcd", Some(b"data_value"))
            .unwrap();
        run.expect_leaves(&trie, &state_of(&[("abcd", "data_value")]))
            .unwrap();
        expect_model_root("root", &state_of(&[("abcd", "data_value")]), &root).unwrap();
        let outcome = run.finish(&root);
        assert_eq!((outcome.commits, outcome.reads), (1, 2));
    }

    #[test]
    fn show_value_quotes_text_and_hexes_binary() {
        assert_eq!(show_value(Some(b"5.0")), "\"5.0\"");
        assert_eq!(show_value(Some(&[0xff, 0x00])), "0xff00");
        assert_eq!(show_value(None), "no value");
    }
}
