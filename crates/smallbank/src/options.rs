//! [`SmallbankOptions`]: what a run does and where, and [`TransactStore`]: which of Transact's
//! states it checks triebench's against.

use std::path::PathBuf;

use crate::family::Family;

/// What to run, where.
#[derive(Debug, Clone)]
pub struct SmallbankOptions {
    /// The transaction family (SmallBank by default).
    pub family: Family,
    /// The triebench profile (`btree`, `lmdb`, `sqlite-wal-full`, `postgres`, ...).
    pub profile: String,
    /// The state directory for file-backed profiles (created if missing).
    pub dir: Option<PathBuf>,
    /// Accounts the playlist creates first (at least 2), or keys the command family creates
    /// (at least 1).
    pub accounts: u64,
    /// Transactions after the account creations.
    pub transactions: u64,
    /// Transactions per block (at least 1).
    pub block_size: u64,
    /// The playlist's seed.
    pub seed: u64,
    /// Where to write the run's per-block changes as a `triebench root` commit file, with the
    /// roots beside it in `<trace>.roots`.
    pub trace: Option<PathBuf>,
    /// Which of Transact's states runs beside triebench's (in memory by default).
    pub transact: TransactStore,
}

/// Which of Transact's states runs beside triebench's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TransactStore {
    /// Transact 0.4.7's `MerkleState` over its in-memory `BTreeDatabase`, in this process.
    #[default]
    Memory,
    /// A Transact implementation `transact-runner list` names (`transact-0.4.7:lmdb`,
    /// `transact-0.4.7:sqlite-wal-full`, `transact-0.4.7:postgres`, ...), run by the
    /// `transact-runner` at `runner`, its store in `<dir>/transact/`.
    Runner {
        /// The implementation's id.
        implementation: String,
        /// The `transact-runner` binary (crates/transact-compare).
        runner: PathBuf,
        /// After each prune, delete the rows a SQL state's prune only marks
        /// (`SqlMerkleState::remove_pruned_entries`, outside Transact's `Prune` trait).
        remove_pruned: bool,
    },
}

impl TransactStore {
    /// Whether Transact's side deletes the rows its SQL state's prune marks.
    pub fn removes_pruned(&self) -> bool {
        matches!(
            self,
            TransactStore::Runner {
                remove_pruned: true,
                ..
            }
        )
    }

    /// The name a result and a table give Transact's side.
    pub fn name(&self) -> String {
        match self {
            TransactStore::Memory => MEMORY_NAME.to_string(),
            TransactStore::Runner { implementation, .. } => implementation.clone(),
        }
    }
}

/// [`TransactStore::Memory`]'s name in a result.
pub const MEMORY_NAME: &str = "transact-0.4.7:btree";
