//! [`Side`]: one state a run drives (triebench's, or one of Transact's own) with Transact's
//! executor over it, block by block: execute the block, commit the block's changes on the
//! previous root, prune that root, and say what it came to ([`BlockOutcome`]).

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use transact::protocol::batch::BatchPair;
use transact::state::{Prune, Read, StateChange, Write};

use crate::error::SmallbankError;
use crate::family::Family;
use crate::io_counter::write_bytes;
use crate::pipeline::{Executed, Pipeline};

/// A Transact 0.4.7 state over string roots and addresses, readable, writable and prunable:
/// what a side executes on and commits to (triebench-transact-state's `TransactState`,
/// Transact's `MerkleState` and `SqlMerkleState`).
pub trait FullState:
    Read<StateId = String, Key = String, Value = Vec<u8>>
    + Write<StateId = String, Key = String, Value = Vec<u8>>
    + Prune<StateId = String, Key = String, Value = Vec<u8>>
{
}

impl<T> FullState for T where
    T: Read<StateId = String, Key = String, Value = Vec<u8>>
        + Write<StateId = String, Key = String, Value = Vec<u8>>
        + Prune<StateId = String, Key = String, Value = Vec<u8>>
{
}

/// What one side did with one block: its root, a digest of its changes (so two sides in two
/// processes can be compared without shipping the changes), the handler's verdicts, and the
/// time and bytes it took.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockOutcome {
    /// The root after the block.
    pub root: String,
    /// Distinct addresses the block changed.
    pub changes: u64,
    /// SHA-256 (hex) of the block's changes as a commit file line ([`commit_line`]).
    pub changes_sha256: String,
    /// Transactions the handler accepted.
    pub valid: u64,
    /// Transactions the handler rejected.
    pub invalid: u64,
    /// Executing the block, nanoseconds.
    pub execute_ns: u64,
    /// Committing the block and pruning the root before it, nanoseconds.
    pub commit_ns: u64,
    /// `write_bytes` of this process and its server during the commit and prune.
    pub written_bytes: u64,
}

/// A block's outcome with the changes themselves, for the side that writes the trace.
#[derive(Debug)]
pub struct SideBlock {
    /// What it came to.
    pub outcome: BlockOutcome,
    /// The block's commit: the last change to each address, in address order.
    pub changes: Vec<StateChange>,
    /// The same as a commit file line.
    pub line: String,
}

/// A call after each prune: a SQL state's `remove_pruned_entries`, which deletes the rows its
/// `prune` only marks.
pub type RemovePruned = Box<dyn Fn() -> Result<(), String> + Send>;

/// One state and Transact's executor over it.
pub struct Side {
    name: &'static str,
    state: Box<dyn FullState>,
    pipeline: Pipeline,
    server: Option<u32>,
    after_prune: Option<RemovePruned>,
}

impl Side {
    /// Starts Transact's executor with `family`'s handler over `state`; `name` (`triebench`,
    /// `transact`) says which side an error is from, `server` is a managed server whose
    /// writes count as the side's.
    pub fn start(
        name: &'static str,
        state: Box<dyn FullState>,
        family: Family,
        server: Option<u32>,
    ) -> Result<Self, SmallbankError> {
        let pipeline = Pipeline::start(state.clone_box(), family).map_err(|message| {
            SmallbankError::Execution {
                side: name,
                block: 0,
                message,
            }
        })?;
        Ok(Side {
            name,
            state,
            pipeline,
            server,
            after_prune: None,
        })
    }

    /// Runs `remove` after each prune, inside the commit's time.
    pub fn after_prune(&mut self, remove: RemovePruned) {
        self.after_prune = Some(remove);
    }

    /// Executes block number `block` on `root`, commits its changes and prunes `root` if the
    /// block moved it (Transact 0.4.7 deletes its live head when a prune follows a commit that
    /// changed nothing: docs/findings/transact.md).
    pub fn block(
        &self,
        block: u64,
        root: &str,
        batches: Vec<BatchPair>,
    ) -> Result<SideBlock, SmallbankError> {
        let t = Instant::now();
        let executed =
            self.pipeline
                .execute(root, batches)
                .map_err(|message| SmallbankError::Execution {
                    side: self.name,
                    block,
                    message,
                })?;
        let execute_ns = ns_since(t);
        let changes = block_commit(&executed);
        let state_error = |e: &dyn std::fmt::Display| SmallbankError::State {
            side: self.name,
            block,
            message: e.to_string(),
        };
        let before = write_bytes(self.server);
        let t = Instant::now();
        let root = root.to_string();
        let next = self
            .state
            .commit(&root, &changes)
            .map_err(|e| state_error(&e))?;
        if next != root {
            self.state.prune(vec![root]).map_err(|e| state_error(&e))?;
            if let Some(remove) = &self.after_prune {
                remove().map_err(|e| state_error(&e))?;
            }
        }
        let commit_ns = ns_since(t);
        let written_bytes = write_bytes(self.server).saturating_sub(before);
        let line = commit_line(&changes);
        Ok(SideBlock {
            outcome: BlockOutcome {
                root: next,
                changes: changes.len() as u64,
                changes_sha256: hex::encode(Sha256::digest(line.as_bytes())),
                valid: executed.valid,
                invalid: executed.invalid,
                execute_ns,
                commit_ns,
                written_bytes,
            },
            changes,
            line,
        })
    }

    /// Stops the executor's threads.
    pub fn stop(self) {
        self.pipeline.stop();
    }
}

fn ns_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// A block's changes as one commit: the last change to each address wins, in address order
/// (what the block's final context holds; each address appears once, as the commit file
/// format requires).
fn block_commit(executed: &Executed) -> Vec<StateChange> {
    let mut last: BTreeMap<&str, &StateChange> = BTreeMap::new();
    for change in &executed.changes {
        let key = match change {
            StateChange::Set { key, .. } | StateChange::Delete { key } => key.as_str(),
        };
        last.insert(key, change);
    }
    last.into_values().cloned().collect()
}

/// A commit's changes as a line of the commit file `triebench root` replays: `{"set":
/// {address: hex value, ...}, "delete": [address, ...]}`, keys in order.
pub fn commit_line(changes: &[StateChange]) -> String {
    let mut set = serde_json::Map::new();
    let mut delete = Vec::new();
    for change in changes {
        match change {
            StateChange::Set { key, value } => {
                set.insert(key.clone(), serde_json::Value::String(hex::encode(value)));
            }
            StateChange::Delete { key } => delete.push(serde_json::Value::String(key.clone())),
        }
    }
    let mut line = serde_json::Map::new();
    line.insert("set".into(), serde_json::Value::Object(set));
    if !delete.is_empty() {
        line.insert("delete".into(), serde_json::Value::Array(delete));
    }
    serde_json::Value::Object(line).to_string()
}
