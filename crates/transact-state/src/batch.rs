//! Transact's batch rule, and conversions from Transact's changes to the trie's.
//!
//! Transact 0.4.7 does not apply a batch in order: every set first (a later set of an address
//! wins), then every delete, each against the state at the parent root. So a delete of an
//! address wins over a set of it wherever the two stand in the batch, and deleting an address
//! that holds no value at the parent is an error even if the batch sets it first. The trie
//! applies a batch in order (`[Delete k, Set k]` there ends with `k` set); [`transact_batch`]
//! turns a batch into one in which every address appears once, so the trie gives Transact's
//! root for it.

use std::collections::HashMap;

use transact::state::StateChange as TransactChange;
use triebench_merkle::StateChange;

/// The changes of `batch` under Transact's rule, one per address: a delete for every address
/// the batch deletes, and the last set of every other address. The result's order does not
/// matter to the trie, since no address appears twice.
pub fn transact_batch(batch: &[TransactChange]) -> Vec<StateChange> {
    let mut deleted: HashMap<&str, ()> = HashMap::new();
    for change in batch {
        if let TransactChange::Delete { key } = change {
            deleted.insert(key, ());
        }
    }
    // The last set of each address that is not deleted, in order of its first set.
    let mut position: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<StateChange> = Vec::with_capacity(batch.len());
    for change in batch {
        let TransactChange::Set { key, value } = change else {
            continue;
        };
        if deleted.contains_key(key.as_str()) {
            continue;
        }
        match position.get(key.as_str()) {
            Some(&i) => out[i] = to_trie_change(change),
            None => {
                position.insert(key, out.len());
                out.push(StateChange::Set {
                    address: key.clone(),
                    value: value.clone(),
                });
            }
        }
    }
    let mut deletes: Vec<&str> = deleted.into_keys().collect();
    deletes.sort_unstable();
    out.extend(deletes.into_iter().map(|address| StateChange::Delete {
        address: address.to_string(),
    }));
    out
}

/// The trie's form of one Transact change (its `key` is the trie's `address`).
pub fn to_trie_change(change: &TransactChange) -> StateChange {
    match change {
        TransactChange::Set { key, value } => StateChange::Set {
            address: key.clone(),
            value: value.clone(),
        },
        TransactChange::Delete { key } => StateChange::Delete {
            address: key.clone(),
        },
    }
}

/// Transact's form of one trie change, moving its address and value.
pub fn to_transact_change(change: StateChange) -> TransactChange {
    match change {
        StateChange::Set { address, value } => TransactChange::Set {
            key: address,
            value,
        },
        StateChange::Delete { address } => TransactChange::Delete { key: address },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(k: &str, v: u8) -> TransactChange {
        TransactChange::Set {
            key: k.into(),
            value: vec![v],
        }
    }

    fn del(k: &str) -> TransactChange {
        TransactChange::Delete { key: k.into() }
    }

    #[test]
    fn a_delete_wins_over_a_set_in_either_order() {
        for batch in [vec![set("ab", 1), del("ab")], vec![del("ab"), set("ab", 1)]] {
            assert_eq!(
                transact_batch(&batch),
                vec![StateChange::Delete {
                    address: "ab".into()
                }]
            );
        }
    }

    #[test]
    fn the_last_set_wins_and_each_address_appears_once() {
        let out = transact_batch(&[
            set("ab", 1),
            set("cd", 2),
            set("ab", 3),
            del("ef"),
            del("ef"),
        ]);
        assert_eq!(
            out,
            vec![
                StateChange::Set {
                    address: "ab".into(),
                    value: vec![3]
                },
                StateChange::Set {
                    address: "cd".into(),
                    value: vec![2]
                },
                StateChange::Delete {
                    address: "ef".into()
                },
            ]
        );
    }
}
