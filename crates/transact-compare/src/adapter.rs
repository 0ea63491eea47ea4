//! The adapter from one Transact version's `Write`/`Read`/`Prune` traits to [`TransactState`],
//! written once: the two versions' traits are distinct types with the same shape, so
//! [`transact_adapter!`](crate::transact_adapter) stamps the adapter out per version
//! ([`v037`](crate::v037), [`v047`](crate::v047)).
//!
//! [`TransactState`]: crate::TransactState

/// Defines `$name<S>`, a [`TransactState`](crate::TransactState) over any store implementing
/// `$krate::state::{Write, Read, Prune}` with string roots and addresses.
#[macro_export]
macro_rules! transact_adapter {
    ($name:ident, $krate:ident, $doc:literal) => {
        #[doc = $doc]
        pub struct $name<S> {
            state: S,
            initial: String,
        }

        impl<S> $name<S> {
            /// Wraps `state`, whose empty trie has root `initial`.
            pub fn new(state: S, initial: String) -> Self {
                $name { state, initial }
            }
        }

        fn changes(changes: &[$crate::Change]) -> Vec<$krate::state::StateChange> {
            changes
                .iter()
                .map(|c| match c {
                    $crate::Change::Set { address, value } => $krate::state::StateChange::Set {
                        key: address.clone(),
                        value: value.clone(),
                    },
                    $crate::Change::Delete { address } => $krate::state::StateChange::Delete {
                        key: address.clone(),
                    },
                })
                .collect()
        }

        impl<S> $crate::TransactState for $name<S>
        where
            S: $krate::state::Write<StateId = String, Key = String, Value = Vec<u8>>
                + $krate::state::Read<StateId = String, Key = String, Value = Vec<u8>>
                + $krate::state::Prune<StateId = String, Key = String, Value = Vec<u8>>,
        {
            fn initial_root(&self) -> &str {
                &self.initial
            }

            fn commit(
                &self,
                root: &str,
                c: &[$crate::Change],
            ) -> Result<String, $crate::TransactError> {
                $krate::state::Write::commit(&self.state, &root.to_string(), &changes(c))
                    .map_err(|e| $crate::TransactError::state("commit", e))
            }

            fn compute(
                &self,
                root: &str,
                c: &[$crate::Change],
            ) -> Result<String, $crate::TransactError> {
                $krate::state::Write::compute_state_id(&self.state, &root.to_string(), &changes(c))
                    .map_err(|e| $crate::TransactError::state("compute_state_id", e))
            }

            fn get(
                &self,
                root: &str,
                addresses: &[String],
            ) -> Result<std::collections::HashMap<String, Vec<u8>>, $crate::TransactError> {
                $krate::state::Read::get(&self.state, &root.to_string(), addresses)
                    .map_err(|e| $crate::TransactError::state("get", e))
            }

            fn prune(&self, roots: &[String]) -> Result<Vec<String>, $crate::TransactError> {
                $krate::state::Prune::prune(&self.state, roots.to_vec())
                    .map_err(|e| $crate::TransactError::state("prune", e))
            }
        }
    };
}
