//! The storage floor of a trie commit: the very writes `update`'s single-key commits make,
//! replayed directly on the store (no trie, no reads, no hashing), so a report can set each
//! backend's scenario times against what its storage alone costs for the same keys and bytes.
//!
//! The writes are recorded once per process ([`UpdateWrites::record`]): `update`'s first
//! [`PRELOAD_COMMITS`]` + `[`FLOOR_COMMITS`] single-key commits run through the trie on an
//! in-memory store wrapped in a [`RecordingStore`], which keeps each committed transaction's
//! writes (table, key, value, and whether it was a `put`, a `put_many` or a `delete`).
//! [`FloorCommits::preload`] writes the empty root's set-up and the first [`PRELOAD_COMMITS`]
//! commits into the store under test, so the timed commits land in tables of the size
//! `update` averages over its 1000 commits (the middle of its run); each
//! [`FloorCommits::prepare`] selects the next recorded commit; [`FloorCommits::commit`] makes
//! exactly that commit's writes in one write transaction. The caller leaves the recording, the
//! preload and the prepare untimed.
//!
//! What the timed commits (`update`'s commits 350..650) write, on average (the test
//! `the_documented_figures_are_the_recorded_ones` recomputes these lines from the recording):
//!
//! - `main`: one `put_many` of 33 new nodes each, 18.6 KB of keys (raw 32-byte hashes) and
//!   encodings, the new root's encoding alone 15.1 KB;
//! - `change_log`: 3.0 `put`s (the new root's entry, its additions stored apart, and
//!   its parent's entry, rewritten), 1.3 KB;
//! - `duplicate_log`: 0.0 writes (`update`'s nodes are all distinct).
//!
//! Unlike the synthetic commit the floor used to write, the bytes are real node encodings
//! (what a compressing store, PostgreSQL's TOAST, sees), the keys are the nodes' own hashes,
//! and the preloaded tables hold the large roots of earlier commits as `update`'s do.

pub mod entries;
pub mod recording;
pub mod replay;
pub mod update_writes;

use std::sync::OnceLock;

use triebench_kv::{KvError, Store, WriteTx};
use triebench_merkle::MerkleError;

pub use entries::Entries;
pub use recording::{RecordingStore, Write};
pub use replay::{shuffle_entries, Replayer};
pub use update_writes::UpdateWrites;

// Commits one floor block times (the headline takes one block per round, dealt into ten
// samples like `update`'s): written in the record's vocabulary, as the report names it (rustdoc
// shows the record's doc).
pub use triebench_record::vocabulary::FLOOR_COMMITS;

/// `update`'s commits [`FloorCommits::preload`] writes before the timed ones: with
/// [`FLOOR_COMMITS`] = 300, the timed commits are `update`'s commits 350..650, centred on the
/// middle of its 1000, where its tables have the size they average over the run.
pub const PRELOAD_COMMITS: usize = 350;

/// Entries preloaded per write transaction, so no backend holds one huge transaction.
const PRELOAD_BATCH: usize = 1_000;

/// The recorded writes of `update`'s first [`PRELOAD_COMMITS`]` + `[`FLOOR_COMMITS`] commits,
/// recorded on the first call in this process (the floor runs once per profile; the trie is
/// deterministic, so every recording is the same).
pub fn recorded() -> Result<&'static UpdateWrites, MerkleError> {
    static RECORDED: OnceLock<UpdateWrites> = OnceLock::new();
    if let Some(writes) = RECORDED.get() {
        return Ok(writes);
    }
    // Both fit a u32 by far (300 + 350).
    let recorded = UpdateWrites::record((PRELOAD_COMMITS + FLOOR_COMMITS) as u32)?;
    // Had another thread recorded first, its recording is equal to this one.
    Ok(RECORDED.get_or_init(|| recorded))
}

/// Replays `update`'s recorded writes on a store: the preload, then one timed commit at a time.
#[derive(Debug)]
pub struct FloorCommits {
    writes: &'static UpdateWrites,
    /// Makes the recorded calls in the store's tables.
    replayer: Replayer,
    /// The recorded commit [`FloorCommits::prepare`] selects next.
    next: usize,
    /// The recorded commit [`FloorCommits::commit`] makes.
    selected: Option<usize>,
}

impl FloorCommits {
    /// Floor commits into the trie's tables of `store` (opened with
    /// [`triebench_merkle::TABLES`]); records `update`'s writes if this process has not yet.
    pub fn new<S: Store>(store: &S) -> Result<Self, MerkleError> {
        let writes = recorded()?;
        let replayer = Replayer::new(store, &writes.table_names)?;
        Ok(FloorCommits {
            writes,
            replayer,
            next: PRELOAD_COMMITS,
            selected: None,
        })
    }

    /// Writes the empty root's set-up and `update`'s first [`PRELOAD_COMMITS`] commits in
    /// order, about 1,000 entries per write transaction (so each key ends with the
    /// value `update` left it). Not part of the floor: the caller leaves it untimed.
    pub fn preload<S: Store>(&mut self, store: &S) -> Result<(), KvError> {
        let preloaded = self.writes.commits.get(..PRELOAD_COMMITS).ok_or_else(|| {
            KvError::backend("floor", "fewer recorded commits than the preload needs")
        })?;
        let mut w = store.writer()?;
        let mut in_tx = 0;
        for write in self.writes.setup.iter().chain(preloaded).flatten() {
            self.replayer.apply(&mut w, write)?;
            in_tx += write.entries();
            if in_tx >= PRELOAD_BATCH {
                w.commit()?;
                w = store.writer()?;
                in_tx = 0;
            }
        }
        w.commit()?;
        self.next = PRELOAD_COMMITS;
        self.selected = None;
        Ok(())
    }

    /// Selects the next recorded commit (the first call after [`FloorCommits::preload`],
    /// `update`'s commit [`PRELOAD_COMMITS`]), so that [`FloorCommits::commit`] only writes:
    /// the caller leaves this untimed.
    pub fn prepare(&mut self) {
        self.selected = Some(self.next);
        self.next += 1;
    }

    /// Makes the selected commit's recorded writes, in the recorded order and with the
    /// recorded calls (`put`, `put_many`, `delete`), in one write transaction. An error if
    /// nothing is selected or more commits were prepared than were recorded.
    pub fn commit<S: Store>(&self, store: &S) -> Result<(), KvError> {
        let writes = self
            .selected
            .and_then(|i| self.writes.commits.get(i))
            .ok_or_else(|| {
                KvError::backend(
                    "floor",
                    format!(
                        "no recorded commit selected: call prepare() at most {FLOOR_COMMITS} \
                         times after preload()"
                    ),
                )
            })?;
        let mut w = store.writer()?;
        for write in writes {
            self.replayer.apply(&mut w, write)?;
        }
        w.commit()
    }
}

#[cfg(test)]
mod tests;
