//! What `triebench smallbank --out` writes: a SmallBank run's chain and both sides' figures
//! (triebench's state and Transact's `MerkleState`, one process), so the report reads it without
//! linking Transact.

use serde::{Deserialize, Serialize};

/// p50 and p99 of a per-block time, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50_us: f64,
    /// 99th percentile (nearest rank).
    pub p99_us: f64,
}

impl Percentiles {
    /// The percentiles of `ns` (sorted here).
    pub fn of(ns: &mut [u64]) -> Self {
        ns.sort_unstable();
        let at = |q: f64| -> f64 {
            if ns.is_empty() {
                return 0.0;
            }
            let rank = ((q * ns.len() as f64).ceil() as usize).clamp(1, ns.len());
            ns[rank - 1] as f64 / 1000.0
        };
        Percentiles {
            p50_us: at(0.5),
            p99_us: at(0.99),
        }
    }
}

/// One side's figures: Transact's executor over that side's state, then the commit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SideFigures {
    /// Executing plus committing plus pruning, all blocks, seconds.
    pub total_s: f64,
    /// Executing alone, all blocks, seconds.
    pub execute_s: f64,
    /// Committing and pruning alone, all blocks, seconds.
    pub commit_s: f64,
    /// Transactions (valid or not) per second of `total_s`.
    pub transactions_per_s: f64,
    /// Blocks per second of `total_s`.
    pub blocks_per_s: f64,
    /// Per-block execution time.
    pub execute: Percentiles,
    /// Per-block commit and prune time.
    pub commit: Percentiles,
}

/// A whole run: the options, the chain, and both sides' figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SmallbankResult {
    /// The transaction family (`smallbank`; `command`: Transact's command family). A file
    /// from before families were asked for is SmallBank's.
    #[serde(default = "smallbank_family")]
    pub family: String,
    /// The triebench profile.
    pub profile: String,
    /// Transact's state beside it: `transact-0.4.7:btree` (its MerkleState in memory, in the
    /// same process; what a file from before this field ran) or a `transact-runner`
    /// implementation (`transact-0.4.7:lmdb`, `transact-0.4.7:sqlite-wal-full`, ...).
    #[serde(default = "transact_in_memory")]
    pub transact_state: String,
    /// Whether Transact's SQL state had the rows its prune marks deleted after each prune
    /// (`SqlMerkleState::remove_pruned_entries`, counted in its commit time).
    #[serde(default)]
    pub transact_removes_pruned: bool,
    /// Accounts created (the playlist's first transactions).
    pub accounts: u64,
    /// Transactions after the account creations.
    pub transactions: u64,
    /// Transactions per block.
    pub block_size: u64,
    /// The playlist's seed.
    pub seed: u64,
    /// Blocks committed.
    pub blocks: u64,
    /// Transactions the handler accepted.
    pub valid_transactions: u64,
    /// Transactions the handler rejected.
    pub invalid_transactions: u64,
    /// Root after the last block (the same on both sides: the run stops otherwise).
    pub final_root: String,
    /// Leaves written per block (distinct addresses changed), mean.
    pub changes_per_block: f64,
    /// triebench-transact-state on `profile`.
    pub triebench: SideFigures,
    /// Transact 0.4.7's state named by `transact_state`.
    pub transact: SideFigures,
    /// Bytes this process (and a managed server) wrote per block during triebench's commits,
    /// mean (`/proc/<pid>/io` `write_bytes`: 0 on tmpfs and in memory).
    pub triebench_bytes_written_per_block: f64,
    /// Bytes the state directory takes at the end (allocated blocks; 0 for in-memory
    /// profiles and servers reached by URL; Transact's store under it not counted).
    pub state_bytes: u64,
    /// The same as `triebench_bytes_written_per_block` for Transact's commits (its runner
    /// process and the PostgreSQL server started for it; 0 in memory).
    #[serde(default)]
    pub transact_bytes_written_per_block: f64,
    /// Bytes Transact's store takes at the end (`<dir>/transact`; 0 in memory).
    #[serde(default)]
    pub transact_state_bytes: u64,
}

/// Transact's side of a record that names none: its MerkleState in memory.
fn transact_in_memory() -> String {
    "transact-0.4.7:btree".to_string()
}

/// The family of a SmallBank record that names none.
fn smallbank_family() -> String {
    "smallbank".to_string()
}
