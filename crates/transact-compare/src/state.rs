//! The interface the workloads drive: Transact's `Write`, `Read` and `Prune` reduced to what the
//! scenarios use, object-safe so each Transact version and store hides behind one type.

use std::collections::HashMap;

use crate::TransactError;

/// One change of a commit, converted to each Transact version's `StateChange`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Store `value` at `address`.
    Set {
        /// Lowercase hex, even length.
        address: String,
        /// The value.
        value: Vec<u8>,
    },
    /// Remove the value at `address`.
    Delete {
        /// Lowercase hex, even length.
        address: String,
    },
}

impl Change {
    /// A set of `address` to `value`.
    pub fn set(address: &str, value: &[u8]) -> Change {
        Change::Set {
            address: address.to_string(),
            value: value.to_vec(),
        }
    }

    /// A delete of `address`.
    pub fn delete(address: &str) -> Change {
        Change::Delete {
            address: address.to_string(),
        }
    }

    /// The same change in triebench's vocabulary.
    pub fn to_triebench(&self) -> triebench_merkle::StateChange {
        match self {
            Change::Set { address, value } => triebench_merkle::StateChange::Set {
                address: address.clone(),
                value: value.clone(),
            },
            Change::Delete { address } => triebench_merkle::StateChange::Delete {
                address: address.clone(),
            },
        }
    }
}

/// A Transact merkle state: roots are 64-hex-character strings, as in Transact.
pub trait TransactState {
    /// The root of the empty trie (stored, so it can be committed on).
    fn initial_root(&self) -> &str;
    /// Applies `changes` on top of `root` and stores the result; returns the new root.
    fn commit(&self, root: &str, changes: &[Change]) -> Result<String, TransactError>;
    /// The root `commit` would return, without storing anything.
    fn compute(&self, root: &str, changes: &[Change]) -> Result<String, TransactError>;
    /// The values of those `addresses` that hold one under `root`.
    fn get(
        &self,
        root: &str,
        addresses: &[String],
    ) -> Result<HashMap<String, Vec<u8>>, TransactError>;
    /// Prunes `roots`; returns the node hashes (or ids) removed.
    fn prune(&self, roots: &[String]) -> Result<Vec<String>, TransactError>;
}
