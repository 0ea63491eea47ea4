//! One commit of a field workload: its inserts, updates and deletes, kept apart so a test can
//! count them; or a batch of reads (Merk's), which commits nothing.

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
    /// Addresses held, read (at the root the commits before it left); a batch of reads has
    /// no writes and commits nothing.
    pub reads: Vec<String>,
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

    /// Which single kind of operation the commit holds, when it holds one kind only: the
    /// per-kind rates (inserts/s, updates/s, reads/s) count such commits.
    pub fn kind(&self) -> Option<OpKind> {
        match (
            self.inserts.is_empty(),
            self.updates.is_empty(),
            self.deletes.is_empty(),
            self.reads.is_empty(),
        ) {
            (false, true, true, true) => Some(OpKind::Inserts),
            (true, false, true, true) => Some(OpKind::Updates),
            (true, true, false, true) => Some(OpKind::Deletes),
            (true, true, true, false) => Some(OpKind::Reads),
            _ => None,
        }
    }
}

/// The kind of operation a single-kind commit holds ([`FieldCommit::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Inserts only.
    Inserts,
    /// Updates only.
    Updates,
    /// Deletes only.
    Deletes,
    /// Reads only (no commit).
    Reads,
}
