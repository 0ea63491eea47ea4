//! Why a SmallBank run stopped.

use std::path::PathBuf;

/// Why a SmallBank run stopped.
#[derive(Debug, thiserror::Error)]
pub enum SmallbankError {
    /// The options cannot make a run (too few accounts, a block of no transactions).
    #[error("invalid SmallBank options: {0}")]
    Options(String),
    /// The profile could not be opened (an unknown name lists the valid ones; a file-backed
    /// profile without a usable directory says so).
    #[error("cannot open profile `{profile}`: {source}")]
    Open {
        /// The profile name asked for.
        profile: String,
        /// What went wrong.
        #[source]
        source: triebench_transact_state::OpenError,
    },
    /// The run's directory could not be created or is not a directory.
    #[error("cannot use {} as the state directory: {source}", path.display())]
    Directory {
        /// The directory asked for.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// A payload or batch could not be encoded as Transact's protocol messages.
    #[error("cannot encode a SmallBank batch: {0}")]
    Protocol(String),
    /// Transact's scheduler, executor or context manager failed.
    #[error("Transact's execution failed ({side}, block {block}): {message}")]
    Execution {
        /// `triebench` or `transact`.
        side: &'static str,
        /// 1-based block number.
        block: u64,
        /// What Transact said.
        message: String,
    },
    /// A state's commit, read or prune failed.
    #[error("{side} state failed at block {block}: {message}")]
    State {
        /// `triebench` or `transact`.
        side: &'static str,
        /// 1-based block number.
        block: u64,
        /// What the state said.
        message: String,
    },
    /// The two states disagree: the first block whose root or changes differ.
    #[error(
        "block {block}: roots differ (triebench {ours}, Transact {theirs}); \
         the blocks before it agreed"
    )]
    RootMismatch {
        /// 1-based block number.
        block: u64,
        /// triebench-transact-state's root.
        ours: String,
        /// Transact's MerkleState's root.
        theirs: String,
    },
    /// The two executions produced different state changes for one block.
    #[error("block {block}: the executions' state changes differ ({ours} on triebench, {theirs} on Transact)")]
    ChangesMismatch {
        /// 1-based block number.
        block: u64,
        /// How many changes triebench's side produced.
        ours: u64,
        /// How many changes Transact's side produced.
        theirs: u64,
    },
    /// `transact-runner` (Transact's durable side) could not be started.
    #[error("cannot start {} (build it with `cargo build --release --manifest-path crates/transact-compare/Cargo.toml --target-dir target`, or name it with --transact-runner): {source}", path.display())]
    RunnerStart {
        /// The runner binary.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// `transact-runner` failed, stopped, or said something out of turn.
    #[error("Transact's side: {0}")]
    Runner(String),
    /// The trace file could not be written.
    #[error("cannot write the trace {}: {source}", path.display())]
    Trace {
        /// The trace file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
}
