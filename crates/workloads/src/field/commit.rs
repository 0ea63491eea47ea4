//! One commit of a field workload: its inserts, updates and deletes, kept apart so a test can
//! count them.

use triebench_merkle::StateChange;

/// Whether a commit builds the starting state or is one a run times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Builds the state the timed commits start from (Firewood's `create` before the others).
    Setup,
    /// A commit the workload's figure counts.
    Timed,
}

/// One commit: addresses are 70 hex characters (35 bytes), each at most once per commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldCommit {
    /// Addresses new to the state, with their values.
    pub inserts: Vec<(String, Vec<u8>)>,
    /// Addresses already held, with new values.
    pub updates: Vec<(String, Vec<u8>)>,
    /// Addresses held, removed.
    pub deletes: Vec<String>,
}

impl FieldCommit {
    /// The commit as trie changes: inserts, updates, then deletes.
    pub fn changes(&self) -> Vec<StateChange> {
        let sets = self
            .inserts
            .iter()
            .chain(&self.updates)
            .map(|(address, value)| StateChange::Set {
                address: address.clone(),
                value: value.clone(),
            });
        let deletes = self.deletes.iter().map(|address| StateChange::Delete {
            address: address.clone(),
        });
        sets.chain(deletes).collect()
    }

    /// Leaves the commit writes (inserts, updates and deletes).
    pub fn leaves(&self) -> usize {
        self.inserts.len() + self.updates.len() + self.deletes.len()
    }
}
