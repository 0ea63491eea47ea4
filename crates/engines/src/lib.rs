//! `triebench-engines`: one interface, [`Engine`], for authenticated state engines, so that
//! the same batches run on each over the same [`triebench_kv::Store`] and their roots, reads,
//! pruning and proofs can be compared.
//!
//! # Modules, in data order
//!
//! * [`engine`](mod@engine): the [`Engine`] trait and [`Root`], an engine's state root.
//! * `trie`: [`TrieEngine`], triebench's Transact-compatible Merkle-Radix trie
//!   ([`triebench_merkle`]).
//! * [`jellyfish`]: [`JmtEngine`], a Jellyfish Merkle tree (the `jmt` crate) over a
//!   [`JmtStore`]: [`KvTreeStore`] (any kv store) or JMT's own in-memory mock.
//! * [`mpt`]: [`MptEngine`], Ethereum's Merkle Patricia trie over any kv store (triebench's
//!   own, Keccak-256 and RLP); [`ModelMpt`], its reference (roots built from scratch);
//!   [`mpt::vectors`], Ethereum's published trie test vectors (`fixtures/ethereum`) and their
//!   check on any store.
//! * `nomt` (feature `nomt`): `NomtEngine`, NOMT 1.0.5 with its own files in a directory
//!   (not over a kv store; io_uring on Linux), sized by `NomtOptions`; `ModelNomt`, its
//!   reference (roots built from scratch by nomt-core).
//! * `transact` (feature `transact`): `TransactEngine`, Hyperledger Transact 0.4.7's own
//!   `MerkleState` on its in-memory `BTreeDatabase` or, through `KvDatabase` (Transact's
//!   `Database` over a kv store), on any kv store; `TransactOnStore`, the same on a kv store
//!   kept in reach (its rows and space measured).
//! * `model`: [`ModelTrie`], the trie's reference: roots computed from scratch from the
//!   mapping ([`triebench_merkle::reference`]).
//! * `check`: [`check_roots`], an engine run batch by batch beside its reference; a wrong root
//!   is an error.
//! * `versions`: what the reference models keep, each version's root and mapping.
//! * `error`: [`EngineError`].
//!
//! # What is here, and what is not
//!
//! Five engines, each checked against its reference: ours (against [`ModelTrie`], and
//! Transact), JMT (against its mock), the MPT (against Ethereum's vectors and [`ModelMpt`]),
//! Transact 0.4.7 itself (feature `transact`; its roots are the trie's wherever Transact is
//! right) and NOMT (feature `nomt`; against `ModelNomt`). The first four run on every kv
//! profile (Transact through `KvDatabase`), Transact also on its own in-memory database; NOMT
//! runs on its own files in a directory (so on the filesystem under test, not on a kv
//! profile), needs io_uring on Linux, and keeps only its latest version. Ours, JMT and the MPT
//! prune (the MPT by reference counts) and prove; NOMT proves at its latest root and has
//! nothing older to prune; Transact prunes its own way and does not prove.
//!
//! `triebench engines` (triebench-measure's `engines_run`) measures all five side by side, the
//! first four on any profile, NOMT on its files. Not here: Firewood (0.3.1 builds, but its
//! Ecosystem License 1.1 allows use only with Avalanche's platform or for non-production
//! research within the Avalanche ecosystem, not in a general-purpose tool), and Transact's SQL
//! state (`SqlMerkleState`: its diesel and `libsqlite3-sys` would link a second SQLite beside
//! triebench-kv's; it runs in `crates/transact-compare`, a workspace of its own).
//!
//! # Example
//!
//! ```
//! use triebench_kv::btree::BTreeStore;
//! use triebench_engines::{check_roots, Engine, JmtEngine, KvTreeStore, MockJmt};
//! use triebench_merkle::StateChange;
//!
//! let store = BTreeStore::open(triebench_engines::JMT_TABLES)?;
//! let mut jmt = JmtEngine::new(KvTreeStore::new(store)?);
//! let batches = vec![vec![StateChange::Set { address: "abcd".into(), value: b"v".to_vec() }]];
//! let roots = check_roots(&mut jmt, &mut MockJmt::default(), &batches)?;
//! assert_eq!(jmt.get(&roots[0], "abcd")?, Some(b"v".to_vec()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
pub mod engine;
mod error;
pub mod jellyfish;
mod model;
pub mod mpt;
#[cfg(feature = "nomt")]
pub mod nomt;
#[cfg(feature = "transact")]
mod transact;
mod trie;
mod versions;

#[cfg(feature = "nomt")]
pub use self::nomt::{ModelNomt, NomtEngine, NomtOptions};
pub use check::check_roots;
pub use engine::{Engine, Root};
pub use error::EngineError;
pub use jellyfish::{JmtEngine, JmtStore, KvTreeStore, MockJmt, JMT_TABLES};
pub use model::ModelTrie;
pub use mpt::{ModelMpt, MptEngine, MPT_TABLES};
#[cfg(feature = "transact")]
pub use transact::{KvDatabase, TransactEngine, TransactOnStore, TRANSACT_TABLES};
pub use trie::TrieEngine;
