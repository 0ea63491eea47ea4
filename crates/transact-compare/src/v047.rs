//! Transact 0.4.7 (`transact` on crates.io, feature `state-merkle-sql` for the SQL state): any
//! store implementing its `Write`, `Read` and `Prune` traits over string roots and addresses.

use std::collections::HashMap;

use transact::state::{Prune, Read, StateChange, Write};

use crate::{Change, TransactError, TransactState};

/// A Transact 0.4.7 state (key-value `MerkleState` or `SqlMerkleState`) and its empty root.
pub struct V047<S> {
    state: S,
    initial: String,
}

impl<S> V047<S> {
    /// Wraps `state`, whose empty trie has root `initial`.
    pub fn new(state: S, initial: String) -> Self {
        V047 { state, initial }
    }
}

fn changes(changes: &[Change]) -> Vec<StateChange> {
    changes
        .iter()
        .map(|c| match c {
            Change::Set { address, value } => StateChange::Set {
                key: address.clone(),
                value: value.clone(),
            },
            Change::Delete { address } => StateChange::Delete {
                key: address.clone(),
            },
        })
        .collect()
}

impl<S> TransactState for V047<S>
where
    S: Write<StateId = String, Key = String, Value = Vec<u8>>
        + Read<StateId = String, Key = String, Value = Vec<u8>>
        + Prune<StateId = String, Key = String, Value = Vec<u8>>,
{
    fn initial_root(&self) -> &str {
        &self.initial
    }

    fn commit(&self, root: &str, c: &[Change]) -> Result<String, TransactError> {
        Write::commit(&self.state, &root.to_string(), &changes(c))
            .map_err(|e| TransactError::state("commit", e))
    }

    fn compute(&self, root: &str, c: &[Change]) -> Result<String, TransactError> {
        self.state
            .compute_state_id(&root.to_string(), &changes(c))
            .map_err(|e| TransactError::state("compute_state_id", e))
    }

    fn get(
        &self,
        root: &str,
        addresses: &[String],
    ) -> Result<HashMap<String, Vec<u8>>, TransactError> {
        Read::get(&self.state, &root.to_string(), addresses)
            .map_err(|e| TransactError::state("get", e))
    }

    fn prune(&self, roots: &[String]) -> Result<Vec<String>, TransactError> {
        Prune::prune(&self.state, roots.to_vec()).map_err(|e| TransactError::state("prune", e))
    }
}
