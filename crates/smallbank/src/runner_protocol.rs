//! What `triebench smallbank` and `transact-runner smallbank` say to each other when Transact's
//! side runs on one of Transact's own durable states, which cannot link beside triebench's
//! (crates/transact-compare): the request (one JSON argument), then a line on the runner's
//! standard input per block (`next`) and a JSON line back per block ([`RunnerReply`]). The two
//! sides go block by block in turn, so both see the same load.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::SmallbankError;
use crate::side::BlockOutcome;

/// The runner's subcommand; the request follows it as one JSON argument.
pub const SUBCOMMAND: &str = "smallbank";

/// The line that asks the runner for the next block.
pub const NEXT: &str = "next";

/// The run the runner makes on its side: the same family, sizes and seed as the parent's, on
/// a Transact implementation (`transact-0.4.7:lmdb`, ...) in `dir`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunnerRequest {
    /// `transact-runner list`'s id of the Transact state.
    pub implementation: String,
    /// The family's name.
    pub family: String,
    /// Accounts (keys) created first.
    pub accounts: u64,
    /// Transactions after them.
    pub transactions: u64,
    /// Transactions per block.
    pub block_size: u64,
    /// The playlist's seed.
    pub seed: u64,
    /// An empty directory for the Transact store.
    pub dir: PathBuf,
    /// After each prune, delete the rows a SQL state's prune only marks
    /// (`SqlMerkleState::remove_pruned_entries`), inside the commit's time.
    #[serde(default)]
    pub remove_pruned: bool,
}

impl RunnerRequest {
    /// The request as the runner reads it from its argument.
    pub fn from_json(json: &str) -> Result<Self, SmallbankError> {
        serde_json::from_str(json)
            .map_err(|e| SmallbankError::Runner(format!("not a SmallBank request ({e}): {json}")))
    }
}

/// A line the runner writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum RunnerReply {
    /// The store is open and the executor started.
    Ready {
        /// The empty trie's root.
        initial_root: String,
        /// Whether each commit reaches stable storage before it returns.
        fsyncs_per_commit: bool,
    },
    /// One block done.
    Block(BlockOutcome),
    /// The runner stopped: why.
    Failed {
        /// The error, one line.
        message: String,
    },
}
