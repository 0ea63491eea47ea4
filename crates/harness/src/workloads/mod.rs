//! Transact's ten `merkle_trie_*` scenarios as reusable workloads.
//!
//! Each workload takes a fresh store opened with [`triebench_merkle::TABLES`], does the same
//! commits, reads and prunes as the Transact test of the same name, and checks what that test
//! asserts (roots, values, change logs, pruned hashes), plus the roots our reference
//! [reference model](triebench_merkle::reference::root_of) gives for the same content. A failed check is a
//! [`WorkloadError::Mismatch`], never a panic, so the benches can time a workload and the tests
//! can assert it returned `Ok`.
//!
//! The scenario contents come from Transact's `libtransact/tests/state/merkle/mod.rs`.

mod basic;
mod pruning;
pub mod rng;
mod update;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use triebench_kv::{KvError, ReadTx, Store};
use triebench_merkle::{reference, MerkleError, MerkleTrie, StateChange};

pub use update::{update_address, update_key, UPDATE_FINAL_ROOT, UPDATE_LOADED_ROOT, UPDATE_SEED};

/// What a workload did, for benches to report rates and for tests to inspect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The root the scenario finishes at (the one its reads were made under).
    pub root: String,
    /// Successful commits (failed ones that the scenario provokes are not counted).
    pub commits: usize,
    /// Point reads (`get` / `contains`), hits and misses alike.
    pub reads: usize,
    /// Node hashes removed by pruning.
    pub pruned: usize,
}

/// Why a workload failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// A check that Transact's test makes did not hold.
    #[error("{what}: expected {expected}, got {got}")]
    Mismatch {
        /// What was checked, e.g. "value at 1234 under root db73…".
        what: String,
        /// The expected result.
        expected: String,
        /// What the trie produced.
        got: String,
    },
    /// The trie failed where the scenario expects success.
    #[error("trie error: {0}")]
    Merkle(#[from] MerkleError),
    /// The store failed outside the trie (the workloads inspect the node table directly).
    #[error("storage error: {0}")]
    Storage(#[from] KvError),
    /// A scenario name that does not exist.
    #[error("unknown scenario `{name}`; valid scenarios: {valid}")]
    UnknownScenario {
        /// The name given.
        name: String,
        /// Every valid name, comma-separated.
        valid: String,
    },
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

/// Every scenario, in the order Transact's test file defines them.
pub const SCENARIOS: [Scenario; 10] = [
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
    /// The scenario's name (Transact's test name without the `merkle_trie_` prefix).
    pub const fn name(self) -> &'static str {
        match self {
            Scenario::EmptyChanges => "empty_changes",
            Scenario::RootAdvance => "root_advance",
            Scenario::Delete => "delete",
            Scenario::Update => "update",
            Scenario::UpdateSameAddressSpace => "update_same_address_space",
            Scenario::UpdateSameAddressSpaceWithNoChildren => {
                "update_same_address_space_with_no_children"
            }
            Scenario::PruningParent => "pruning_parent",
            Scenario::PruningSuccessors => "pruning_successors",
            Scenario::PruningDuplicateLeaves => "pruning_duplicate_leaves",
            Scenario::PruningSuccessorDuplicateLeaves => "pruning_successor_duplicate_leaves",
        }
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

/// Shows an optional value for a mismatch message: UTF-8 text quoted, anything else as hex.
fn show_value(value: Option<&[u8]>) -> String {
    match value {
        None => "no value".to_string(),
        Some(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => format!("{text:?}"),
            Err(_) => format!("0x{}", hex::encode(bytes)),
        },
    }
}

/// The first 8 characters of a root, enough to tell roots apart in messages.
fn short(root: &str) -> &str {
    root.get(..8).unwrap_or(root)
}

/// A state (address → value) built from string pairs, for the model.
fn state_of(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    pairs
        .iter()
        .map(|(a, v)| ((*a).to_string(), v.as_bytes().to_vec()))
        .collect()
}

/// Runs one scenario's steps on a store, counting what it does and turning failed checks into
/// [`WorkloadError::Mismatch`].
struct Run<'s, S: Store> {
    store: &'s S,
    commits: usize,
    reads: usize,
    pruned: usize,
}

impl<'s, S: Store> Run<'s, S> {
    fn new(store: &'s S) -> Self {
        Run {
            store,
            commits: 0,
            reads: 0,
            pruned: 0,
        }
    }

    /// A trie at the empty root (initialising the store on first use).
    fn trie(&self) -> Result<MerkleTrie<'s, S>, WorkloadError> {
        Ok(MerkleTrie::new(self.store)?)
    }

    /// A trie at `root`.
    fn trie_at(&self, root: &str) -> Result<MerkleTrie<'s, S>, WorkloadError> {
        Ok(MerkleTrie::at_root(self.store, root)?)
    }

    /// Commits `changes` on top of `trie`'s root; the trie does not move.
    fn commit(
        &mut self,
        trie: &MerkleTrie<'s, S>,
        changes: &[StateChange],
    ) -> Result<String, WorkloadError> {
        let root = trie.commit(changes)?;
        self.commits += 1;
        Ok(root)
    }

    /// Commits `changes` from `root`, like Transact's `MerkleState::commit(state_id, changes)`.
    fn commit_at(&mut self, root: &str, changes: &[StateChange]) -> Result<String, WorkloadError> {
        let trie = self.trie_at(root)?;
        self.commit(&trie, changes)
    }

    /// Checks that reading `address` from `trie` gives `expected`.
    fn expect_value(
        &mut self,
        trie: &MerkleTrie<'s, S>,
        address: &str,
        expected: Option<&[u8]>,
    ) -> Result<(), WorkloadError> {
        let got = trie.get(address)?;
        self.reads += 1;
        if got.as_deref() == expected {
            Ok(())
        } else {
            Err(WorkloadError::Mismatch {
                what: format!("value at {address} under root {}", short(trie.root())),
                expected: show_value(expected),
                got: show_value(got.as_deref()),
            })
        }
    }

    /// Checks that every leaf under `trie`'s root is exactly `expected`: no node the root needs
    /// was lost (to pruning, say) and nothing else is reachable.
    fn expect_leaves(
        &mut self,
        trie: &MerkleTrie<'s, S>,
        expected: &BTreeMap<String, Vec<u8>>,
    ) -> Result<(), WorkloadError> {
        let got: BTreeMap<String, Vec<u8>> = trie.leaves("")?.into_iter().collect();
        if &got == expected {
            return Ok(());
        }
        let show = |map: &BTreeMap<String, Vec<u8>>| {
            map.iter()
                .map(|(a, v)| format!("{a}={}", show_value(Some(v))))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(WorkloadError::Mismatch {
            what: format!("leaves under root {}", short(trie.root())),
            expected: show(expected),
            got: show(&got),
        })
    }

    /// Checks that opening `root` fails because the store has no such root.
    fn expect_unknown_root(&self, root: &str, what: &str) -> Result<(), WorkloadError> {
        match MerkleTrie::at_root(self.store, root) {
            Err(MerkleError::UnknownRoot { .. }) => Ok(()),
            Err(other) => Err(other.into()),
            Ok(_) => Err(WorkloadError::Mismatch {
                what: format!("opening {what} {}", short(root)),
                expected: "an unknown-root error".to_string(),
                got: "the root opened".to_string(),
            }),
        }
    }

    /// The change-log entry of `root`, summarised: `None` when the root has none.
    fn change_log(&self, root: &str) -> Result<Option<Log>, WorkloadError> {
        let entry = MerkleTrie::change_log(self.store, root)?;
        Ok(entry.map(|entry| Log {
            parent: hex::encode(entry.parent),
            additions: entry.additions.len(),
            successors: entry
                .successors
                .iter()
                .map(|s| (hex::encode(s.root), s.deletions.len()))
                .collect(),
        }))
    }

    /// The change-log entry of `root`, which must exist.
    fn expect_change_log(&self, root: &str) -> Result<Log, WorkloadError> {
        self.change_log(root)?
            .ok_or_else(|| WorkloadError::Mismatch {
                what: format!("change log of root {}", short(root)),
                expected: "an entry".to_string(),
                got: "none".to_string(),
            })
    }

    /// Checks that `root` has no change-log entry.
    fn expect_no_change_log(&self, root: &str, what: &str) -> Result<(), WorkloadError> {
        match self.change_log(root)? {
            None => Ok(()),
            Some(log) => Err(WorkloadError::Mismatch {
                what: format!("change log of {what} {}", short(root)),
                expected: "no entry".to_string(),
                got: format!("{log:?}"),
            }),
        }
    }

    /// Prunes `root`, counting the removed hashes.
    fn prune(&mut self, root: &str) -> Result<Vec<String>, WorkloadError> {
        let removed = MerkleTrie::prune(self.store, root)?;
        self.pruned += removed.len();
        Ok(removed)
    }

    /// Checks that `removed` is exactly `expected` (in any order) and that none of those
    /// nodes is left in the node table.
    fn expect_pruned(
        &self,
        what: &str,
        expected: &[String],
        removed: &[String],
    ) -> Result<(), WorkloadError> {
        let mut want: Vec<&str> = expected.iter().map(String::as_str).collect();
        let mut got: Vec<&str> = removed.iter().map(String::as_str).collect();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Err(WorkloadError::Mismatch {
                what: format!("hashes removed by {what}"),
                expected: format!("{} [{}]", want.len(), want.join(", ")),
                got: format!("{} [{}]", got.len(), got.join(", ")),
            });
        }
        let main = self.store.table(triebench_merkle::TABLES[0])?;
        let reader = self.store.reader()?;
        for hash in removed {
            if reader.contains(main, hash.as_bytes())? {
                return Err(WorkloadError::Mismatch {
                    what: format!("node {hash} after {what}"),
                    expected: "removed from the node table".to_string(),
                    got: "still stored".to_string(),
                });
            }
        }
        Ok(())
    }

    /// The outcome, finishing at `root`.
    fn finish(self, root: &str) -> Outcome {
        Outcome {
            root: root.to_string(),
            commits: self.commits,
            reads: self.reads,
            pruned: self.pruned,
        }
    }
}

/// A change-log entry as the scenarios check it (Transact's tests look at the same parts).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Log {
    /// The parent root, hex.
    parent: String,
    /// How many nodes the commit added.
    additions: usize,
    /// Each successor's root (hex) and how many hashes it replaced.
    successors: Vec<(String, usize)>,
}

impl Log {
    /// Checks the successors are exactly `roots`, in any order (Transact's
    /// `assert_has_successors`), and returns their deletion counts in the order of `roots`.
    fn expect_successors(&self, of: &str, roots: &[&str]) -> Result<Vec<usize>, WorkloadError> {
        let mut want: Vec<&str> = roots.to_vec();
        let mut got: Vec<&str> = self.successors.iter().map(|(r, _)| r.as_str()).collect();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Err(WorkloadError::Mismatch {
                what: format!("successors in the change log of {of}"),
                expected: want.join(", "),
                got: got.join(", "),
            });
        }
        Ok(roots
            .iter()
            .filter_map(|r| self.successors.iter().find(|(s, _)| s == r))
            .map(|(_, deletions)| *deletions)
            .collect())
    }
}

/// Checks two counts are equal.
fn expect_count(what: &str, expected: usize, got: usize) -> Result<(), WorkloadError> {
    expect_eq(what, &expected.to_string(), &got.to_string())
}

/// Checks two roots (or other strings) are equal.
fn expect_eq(what: &str, expected: &str, got: &str) -> Result<(), WorkloadError> {
    if expected == got {
        Ok(())
    } else {
        Err(WorkloadError::Mismatch {
            what: what.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        })
    }
}

/// Checks two roots differ.
fn expect_ne(what: &str, unexpected: &str, got: &str) -> Result<(), WorkloadError> {
    if unexpected != got {
        Ok(())
    } else {
        Err(WorkloadError::Mismatch {
            what: what.to_string(),
            expected: format!("anything but {unexpected}"),
            got: got.to_string(),
        })
    }
}

/// Checks `got` is the model's root for `state`.
fn expect_model_root(
    what: &str,
    state: &BTreeMap<String, Vec<u8>>,
    got: &str,
) -> Result<(), WorkloadError> {
    expect_eq(what, &reference::root_of(state)?, got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_transacts_and_round_trip() {
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
