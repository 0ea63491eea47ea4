//! [`EngineError`]: every way an engine, or the check of one, can fail.

use triebench_kv::KvError;
use triebench_merkle::{MerkleError, ProofError};

/// Everything the engines report. Nothing user input or storage contents can reach panics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The trie failed (invalid address, a delete of an absent address, a damaged store, ...).
    #[error(transparent)]
    Trie(#[from] MerkleError),

    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] KvError),

    /// An engine's own library failed; its message, with its causes.
    #[error("{engine}: {message}")]
    Library {
        /// The engine.
        engine: &'static str,
        /// What it said.
        message: String,
    },

    /// The engine cannot run on this system (NOMT without io_uring): skip it, saying why.
    #[error("{engine} cannot run here: {reason}")]
    Unavailable {
        /// The engine.
        engine: &'static str,
        /// What it needs that the system lacks.
        reason: String,
    },

    /// A root this engine has not committed, or has pruned.
    #[error("{engine}: unknown root {root}")]
    UnknownRoot {
        /// The engine.
        engine: &'static str,
        /// The root asked for.
        root: String,
    },

    /// An engine's root differs from its reference's for the same batches: its figures would
    /// describe a wrong state, so the run stops.
    #[error(
        "{engine} is wrong: after batch {batch} its root is {found}, {reference} gives {expected}"
    )]
    WrongRoot {
        /// The engine checked.
        engine: &'static str,
        /// The reference it was checked against.
        reference: &'static str,
        /// Index of the batch after which the roots differ.
        batch: usize,
        /// The reference's root.
        expected: String,
        /// The engine's root.
        found: String,
    },

    /// An engine's root for a published test vector is not the published one.
    #[error(
        "{engine} is wrong: test vector {vector} gives {found}, the published root is {expected}"
    )]
    WrongVectorRoot {
        /// The engine checked.
        engine: &'static str,
        /// The vector (file/name, and how it was applied).
        vector: String,
        /// The published root.
        expected: String,
        /// The engine's root.
        found: String,
    },

    /// A stored item that does not decode: the store is damaged or not this engine's.
    #[error("{engine}: stored {what} does not decode: {message}")]
    Corrupt {
        /// The engine.
        engine: &'static str,
        /// What was read.
        what: &'static str,
        /// Why it does not decode.
        message: String,
    },

    /// The engine makes no proofs.
    #[error("{engine} makes no proofs")]
    NoProofs {
        /// The engine.
        engine: &'static str,
    },

    /// A trie proof that does not verify.
    #[error(transparent)]
    Proof(#[from] ProofError),

    /// Another engine's proof that does not verify (or does not decode).
    #[error("{engine}: the proof does not verify: {message}")]
    ProofRejected {
        /// The engine.
        engine: &'static str,
        /// Why.
        message: String,
    },
}
