//! Proofs: that an address holds a value, or holds none, at a state root, checked by someone
//! who has only the root.
//!
//! A [`Proof`] is the path of stored nodes from the root down to the address, each node's
//! encoding exactly as the store holds it (canonical CBOR, see [`codec`](crate::codec)):
//!
//! * **inclusion**: the address's whole path, root first, ending at the node of the address,
//!   whose value is the one proved;
//! * **exclusion**: the path down to the first node that has no child for the address's next
//!   token (the address leaves the trie there), or the whole path when the address's own node
//!   exists but holds no value (an address that is only a prefix of stored ones).
//!
//! [`verify`] needs nothing else: it hashes the first node and compares it with the root, then
//! each later node with the child hash its parent holds for the address's token, and reads the
//! value (or the missing child) off the last node. The format has no path compression, so a
//! proof of a 70-character address holds up to 36 nodes; its size is dominated by the nodes
//! near the root, which list up to 256 children of 69 bytes each ([`Proof::encoded_len`]).
//!
//! Proofs are made by [`MerkleTrie::prove`](crate::MerkleTrie::prove) (at the view's root) and
//! [`TrieState::prove`](crate::TrieState::prove) (at any stored root), and travel as
//! [`Proof::encode`] writes them: a CBOR array of byte strings, one per node.
//!
//! ```
//! use triebench_kv::btree::BTreeStore;
//! use triebench_merkle::{verify, MerkleTrie, ProofError, StateChange, TABLES};
//!
//! let store = BTreeStore::open(TABLES)?;
//! let trie = MerkleTrie::new(&store)?;
//! let root = trie.commit(&[StateChange::Set { address: "abcd".into(), value: b"v".to_vec() }])?;
//! let trie = MerkleTrie::at_root(&store, &root)?;
//!
//! let proof = trie.prove("abcd")?;
//! assert_eq!(proof.nodes().len(), 3); // root, "ab", "abcd"
//! verify(&root, "abcd", Some(b"v"), &proof)?;
//! assert!(matches!(verify(&root, "abcd", Some(b"w"), &proof), Err(ProofError::ValueMismatch { .. })));
//!
//! // "ab" holds no value, and "ee" is not in the trie: both proved absent.
//! verify(&root, "ab", None, &trie.prove("ab")?)?;
//! verify(&root, "ee", None, &trie.prove("ee")?)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layout
//!
//! * `path`: [`Proof`], the nodes and their wire form;
//! * `build`: reading a proof's nodes from the store;
//! * `verify`: [`verify`], recomputing the root from a proof;
//! * `error`: [`ProofError`], why a proof does not verify.

mod build;
mod error;
mod path;
mod verify;

pub(crate) use build::build;
pub use error::ProofError;
pub use path::Proof;
pub use verify::verify;
