//! `triebench-merkle`: a Merkle-Radix trie whose state roots are byte-for-byte those of
//! Hyperledger Transact and Sawtooth, over any [`triebench_kv::Store`].
//!
//! # Modules, in data order
//!
//! * `address`: checks an address and splits it into tokens, one per trie level.
//! * [`codec`]: the node format byte for byte, canonical CBOR with Transact's length quirk.
//! * `node`: stored trie nodes, validated and read in place without decoding.
//! * [`hash`]: node hashes (truncated SHA-512), the root midstate cache, work counters.
//! * `fast_map`: hash maps keyed by node hashes, hashed fast.
//! * `update`: applies a batch in memory: the new root, new encodings, added and replaced nodes.
//! * `subtrees`: a batch's changes in address order, and its opened nodes cut into runs of
//!   whole subtrees, for finishing a large batch on rayon's threads side by side.
//! * `write`: persists that outcome: new nodes, duplicate counts, change-log entries.
//! * `prefix_sort`: sorts the new nodes' hash prefixes by their top bits first, for `write`.
//! * `node_table`: the `main` table's keys, a node's raw 32-byte hash, converted from the hex
//!   the trie works with at the store boundary.
//! * [`store_layout`]: the store's layout version, recorded in `main`; other layouts refused.
//! * `tables`: the table handles and the change-log reads `write`, `prune` and `trie` share.
//! * [`changelog`]: the change-log entry of a root (parent, additions, successors).
//! * `refcount`: reference counts of nodes stored once but added several times.
//! * [`prune`]: removes what an old root alone holds, with Transact's semantics.
//! * `descend`: follows an address's tokens down from a root, the walk every read starts with.
//! * `leaves`: [`Leaves`], the values under a prefix read lazily in address order.
//! * `trie`: [`MerkleTrie`], the view at one root that reads and drives all of the above.
//! * `state`: [`TrieState`], an owned handle to the store that takes the root per call.
//! * [`proof`]: [`Proof`]s that an address holds a value or none at a root, and [`verify`].
//! * [`reference`](mod@reference): a mapping's root built from scratch, the tests' model.
//! * `error`: [`MerkleError`], every way the above can fail.
//!
//! # Model
//!
//! State maps **addresses** (lowercase hex strings of even length; production addresses are 70
//! characters) to byte values. Each pair of hex characters is a token and each token one level
//! of the trie: no path compression. A node holds an optional value and its children; its hash
//! is the first 32 bytes of SHA-512 over its [canonical encoding](codec). The **state root** is
//! the root node's hash as 64 lowercase hex characters, and depends only on the final
//! address -> value mapping, whatever the history of commits that produced it. Values may sit
//! on interior nodes (an address that is a prefix of another, such as `ab` and `abcd`).
//!
//! A [`MerkleTrie`] is a view at one root, borrowing the store; a [`TrieState`] owns the store
//! (an `Arc`, cheap to clone and share between threads) and takes the root per call, for
//! programs that keep state in a long-lived value. [`commit`](MerkleTrie::commit) writes a batch of
//! [`StateChange`]s in one storage transaction and returns the new root;
//! [`compute`](MerkleTrie::compute) returns the same root without writing. Every commit keeps
//! a [change log](changelog) so that old roots can be [pruned](prune).
//! [`prove`](MerkleTrie::prove) gives a [`Proof`] of what an address holds (a value or none)
//! that [`verify`] checks against the root alone.
//!
//! # Batches
//!
//! The changes of a batch apply in order and a later change to the same address wins: a set
//! then a delete of one address is a delete. Deleting an address that holds no value at that
//! point of the batch is [`MerkleError::DeleteAbsent`], and then nothing of the batch is
//! written. (The batch is applied in address order, changes to one address in the batch's
//! order, which gives the same result; where several changes fail, the one reported is the
//! first in address order.) A batch that changes nothing returns the same root and writes no
//! node (it is counted as reaching that root again, see [`MerkleTrie::prune`]). Deleting a
//! value keeps its node while it has children; a node left with no value and no children is
//! removed from its parent, recursively. Values on interior nodes behave like any other
//! (Transact loses them in several cases; this crate does not).
//!
//! [`get`](MerkleTrie::get) and [`contains`](MerkleTrie::contains) answer whether a *value* is
//! stored at an address (Transact's `contains` also answers `true` for an address that is only
//! a prefix of stored ones).
//!
//! # Storage
//!
//! Open the store with the tables in [`TABLES`]. Table `main` maps a node hash (its raw 32
//! bytes; Transact keys it by the 64 hex digits) to the encoded node (Transact's bytes), so a
//! store holds the nodes of every committed root until they are pruned. `main` also records
//! the store's layout version ([`store_layout`]): a store written by an older triebench (hex
//! keys) or a newer layout is refused with [`MerkleError::OldStoreLayout`] or
//! [`MerkleError::NewerStoreLayout`], never read or written. `change_log` and `duplicate_log` hold the pruning
//! bookkeeping: see [`changelog`] and [`prune`]. A node stored twice (by two commits, or at two
//! positions) is kept once and reference-counted.
//!
//! # Performance
//!
//! A batch reads each node on its paths once, keeps stored encodings as they are and re-encodes
//! a changed node by copying its unchanged child entries, hashes each changed node once, and
//! checks storage for an existing copy of a new node only until one is found absent (all new
//! nodes above it are then absent too). A batch of thousands of nodes (a 1,000-key commit's, a
//! growth fill's) is applied in address order, cut into runs of whole subtrees, and those are
//! encoded and hashed side by side on rayon's threads (its global pool, or the pool the caller
//! commits in; `RAYON_NUM_THREADS=1` keeps it on the calling thread), the nodes above them
//! after; others in one sweep, children before parents. What a commit stores is byte for byte
//! the same whatever the number of threads. Root encodings are hashed through a per-thread
//! SHA-512 midstate cache ([`hash::MIDSTATE_MIN_LEN`]), so a commit that changes a large root
//! halfway through hashes only its second half. [`hash::stats`] counts the hashing done. The example
//! `hotpath` times the `update` workload against the SHA-512 floor.
//!
//! # Example
//!
//! ```
//! use triebench_kv::btree::BTreeStore;
//! use triebench_merkle::{MerkleTrie, StateChange, EMPTY_ROOT, TABLES};
//!
//! let store = BTreeStore::open(TABLES)?;
//! let mut trie = MerkleTrie::new(&store)?;
//! assert_eq!(trie.root(), EMPTY_ROOT);
//!
//! let root = trie.commit(&[StateChange::Set {
//!     address: "abcd".into(),
//!     value: b"data_value".to_vec(),
//! }])?;
//! assert_eq!(root, "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870");
//!
//! // The view stays at its root until moved.
//! assert_eq!(trie.get("abcd")?, None);
//! trie.set_root(&root)?;
//! assert_eq!(trie.get("abcd")?, Some(b"data_value".to_vec()));
//! assert_eq!(trie.leaves("ab")?, vec![("abcd".to_string(), b"data_value".to_vec())]);
//!
//! // A later change to the same address wins; deleting an absent address is an error.
//! let batch = [
//!     StateChange::Set { address: "ab".into(), value: vec![1] },
//!     StateChange::Delete { address: "abcd".into() },
//! ];
//! let virtual_root = trie.compute(&batch)?;
//! assert_eq!(trie.commit(&batch)?, virtual_root);
//! assert!(trie.commit(&[StateChange::Delete { address: "ee".into() }]).is_err());
//!
//! // Going back to an earlier mapping gives back the earlier root.
//! let back = MerkleTrie::at_root(&store, &virtual_root)?.commit(&[
//!     StateChange::Delete { address: "ab".into() },
//!     StateChange::Set { address: "abcd".into(), value: b"data_value".to_vec() },
//! ])?;
//! assert_eq!(back, root);
//! # Ok::<(), triebench_merkle::MerkleError>(())
//! ```

mod address;
pub mod changelog;
pub mod codec;
mod descend;
mod error;
mod fast_map;
mod fetch;
pub mod hash;
mod leaves;
mod node;
mod node_table;
mod prefix_sort;
pub mod proof;
pub mod prune;
mod refcount;
pub mod reference;
mod scratch;
mod state;
pub mod store_layout;
mod subtrees;
mod tables;
mod trie;
mod update;
mod write;

pub use address::{check_address, MAX_ADDRESS_LEN};
pub use changelog::{ChangeLogEntry, ChangeLogError, Successor};
pub use codec::DecodeError;
pub use error::{excerpt, MerkleError, EXCERPT_BYTES};
pub use hash::HashStats;
pub use leaves::Leaves;
pub use proof::{verify, Proof, ProofError};
pub use state::TrieState;
pub use trie::MerkleTrie;

/// The tables the trie needs: open stores with these.
pub const TABLES: &[&str] = &["main", "change_log", "duplicate_log"];

/// The root of the empty trie.
pub const EMPTY_ROOT: &str = "708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6";

pub(crate) const EMPTY_ROOT_HEX: hash::HexHash =
    *b"708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6";

/// Encoding of the empty node: `{"c": {}, "v": null}`.
pub(crate) const EMPTY_NODE: [u8; 7] = [0xa2, 0x61, b'c', 0xa0, 0x61, b'v', 0xf6];

/// One change of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateChange {
    /// Store `value` at `address`, replacing any previous value.
    Set {
        /// Lowercase hex, even length.
        address: String,
        /// The value.
        value: Vec<u8>,
    },
    /// Remove the value at `address`; it must hold one at that point of the batch.
    Delete {
        /// Lowercase hex, even length.
        address: String,
    },
}

/// The README's examples, compiled and run by `cargo test --doc` so that they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
