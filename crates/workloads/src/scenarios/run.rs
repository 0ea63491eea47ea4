//! [`Run`]: one scenario's steps on a store, counted, with Transact's checks on the trie, its
//! change logs and pruning.

use std::collections::BTreeMap;
use std::time::Instant;

use triebench_kv::{ReadTx, Store};
use triebench_merkle::{MerkleError, MerkleTrie, StateChange};

use super::check::{short, show_value};
use super::{Lap, Outcome, Step};
use crate::WorkloadError;

/// Runs one scenario's steps on a store, counting what it does and turning failed checks into
/// [`WorkloadError::Mismatch`].
pub(super) struct Run<'s, S: Store> {
    pub(super) store: &'s S,
    pub(super) commits: usize,
    pub(super) reads: usize,
    pub(super) pruned: usize,
    /// Each commit, read and prune, timed, in order.
    laps: Vec<Lap>,
}

impl<'s, S: Store> Run<'s, S> {
    pub(super) fn new(store: &'s S) -> Self {
        Run {
            store,
            commits: 0,
            reads: 0,
            pruned: 0,
            laps: Vec::new(),
        }
    }

    /// Runs `f` and records its time as one lap of `step`.
    fn lap<T>(&mut self, step: Step, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.laps.push(Lap {
            step,
            elapsed: start.elapsed(),
        });
        out
    }

    /// A trie at the empty root (initialising the store on first use).
    pub(super) fn trie(&self) -> Result<MerkleTrie<'s, S>, WorkloadError> {
        Ok(MerkleTrie::new(self.store)?)
    }

    /// A trie at `root`.
    pub(super) fn trie_at(&self, root: &str) -> Result<MerkleTrie<'s, S>, WorkloadError> {
        Ok(MerkleTrie::at_root(self.store, root)?)
    }

    /// Commits `changes` on top of `trie`'s root; the trie does not move.
    pub(super) fn commit(
        &mut self,
        trie: &MerkleTrie<'s, S>,
        changes: &[StateChange],
    ) -> Result<String, WorkloadError> {
        let step = Step::Commit {
            changes: changes.len(),
        };
        let root = self.lap(step, || trie.commit(changes))?;
        self.commits += 1;
        Ok(root)
    }

    /// Commits `changes` from `root`, like Transact's `MerkleState::commit(state_id, changes)`.
    pub(super) fn commit_at(
        &mut self,
        root: &str,
        changes: &[StateChange],
    ) -> Result<String, WorkloadError> {
        let trie = self.trie_at(root)?;
        self.commit(&trie, changes)
    }

    /// Checks that reading `address` from `trie` gives `expected`.
    pub(super) fn expect_value(
        &mut self,
        trie: &MerkleTrie<'s, S>,
        address: &str,
        expected: Option<&[u8]>,
    ) -> Result<(), WorkloadError> {
        let got = self.lap(Step::Read, || trie.get(address))?;
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
    pub(super) fn expect_leaves(
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
    pub(super) fn expect_unknown_root(&self, root: &str, what: &str) -> Result<(), WorkloadError> {
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
    pub(super) fn change_log(&self, root: &str) -> Result<Option<Log>, WorkloadError> {
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
    pub(super) fn expect_change_log(&self, root: &str) -> Result<Log, WorkloadError> {
        self.change_log(root)?
            .ok_or_else(|| WorkloadError::Mismatch {
                what: format!("change log of root {}", short(root)),
                expected: "an entry".to_string(),
                got: "none".to_string(),
            })
    }

    /// Checks that `root` has no change-log entry.
    pub(super) fn expect_no_change_log(&self, root: &str, what: &str) -> Result<(), WorkloadError> {
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
    pub(super) fn prune(&mut self, root: &str) -> Result<Vec<String>, WorkloadError> {
        let store = self.store;
        let removed = self.lap(Step::Prune, || MerkleTrie::prune(store, root))?;
        self.pruned += removed.len();
        Ok(removed)
    }

    /// Checks that `removed` is exactly `expected` (in any order) and that none of those
    /// nodes is left in the node table.
    pub(super) fn expect_pruned(
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
    pub(super) fn finish(self, root: &str) -> Outcome {
        Outcome {
            root: root.to_string(),
            commits: self.commits,
            reads: self.reads,
            pruned: self.pruned,
            laps: self.laps,
        }
    }
}

/// A change-log entry as the scenarios check it (Transact's tests look at the same parts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Log {
    /// The parent root, hex.
    pub(super) parent: String,
    /// How many nodes the commit added.
    pub(super) additions: usize,
    /// Each successor's root (hex) and how many hashes it replaced.
    pub(super) successors: Vec<(String, usize)>,
}

impl Log {
    /// Checks the successors are exactly `roots`, in any order (Transact's
    /// `assert_has_successors`), and returns their deletion counts in the order of `roots`.
    pub(super) fn expect_successors(
        &self,
        of: &str,
        roots: &[&str],
    ) -> Result<Vec<usize>, WorkloadError> {
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
