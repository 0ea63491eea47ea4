//! `triebench-transact-state`: Hyperledger Transact 0.4.7's state traits over the triebench
//! Merkle-Radix trie, so a Transact-based project (a Splinter-like node, a Sawtooth-style
//! ledger) can swap `MerkleState` / `SqlMerkleState` for a trie on LMDB, SQLite, PostgreSQL,
//! Redis or memory, with the same state roots.
//!
//! # Modules, in data order
//!
//! * [`open()`]: a state by profile name and directory, the backend chosen at run time.
//! * [`batch`]: Transact's batch rule (deletes after sets) and conversions between Transact's
//!   changes and the trie's.
//! * `state`: [`TransactState`], implementing `Read`, `Write`, `Prune` and
//!   `MerkleRadixLeafReader`.
//! * `error`: [`OpenError`], why opening failed.
//!
//! # Pruning and blocks that change nothing
//!
//! A block whose batch changes nothing (empty, or setting values they already hold) returns its
//! parent's root. A node that prunes "the previous block's root" after each block then prunes
//! its own head. Transact 0.4.7 keeps the head only for non-empty batches, through node
//! reference counts; the trie counts every commit that reaches a root again and releases
//! nothing on the prune that takes that count off, so the head always stays readable. Prune a
//! root only once per block that produced it.
//!
//! # Example
//!
//! ```
//! use transact::state::{Prune, Read, StateChange, Write};
//! use transact::state::merkle::MerkleRadixLeafReader;
//!
//! // Any profile: "lmdb", "sqlite-wal-full", "postgres", ... with a directory.
//! let state = triebench_transact_state::open("btree", None)?;
//! let genesis = state.initial_root();
//!
//! let block1 = state.commit(&genesis, &[StateChange::Set {
//!     key: "abcd".into(),
//!     value: b"data_value".to_vec(),
//! }])?;
//! assert_eq!(block1, "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870");
//!
//! // A block that changes nothing keeps the root; pruning the previous root keeps the head.
//! let block2 = state.commit(&block1, &[StateChange::Set {
//!     key: "abcd".into(),
//!     value: b"data_value".to_vec(),
//! }])?;
//! assert_eq!(block2, block1);
//! state.prune(vec![block1.clone()])?;
//! let values = state.get(&block2, &["abcd".to_string()])?;
//! assert_eq!(values["abcd"], b"data_value");
//!
//! let leaves: Vec<_> = state.leaves(&block2, None)?.collect::<Result<_, _>>()?;
//! assert_eq!(leaves, vec![("abcd".to_string(), b"data_value".to_vec())]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod batch;
mod error;
mod open;
mod state;

pub use error::OpenError;
pub use open::open;
pub use state::TransactState;

/// The README's examples, compiled and run by `cargo test --doc` so that they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
