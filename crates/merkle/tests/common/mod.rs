//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use triebench_kv::{FreshStores, KeyRange, Profile, ReadTx, Store, StoreVisitor};
use triebench_merkle::{StateChange, TABLES};

pub type Model = BTreeMap<String, Vec<u8>>;

pub fn set(address: &str, value: &[u8]) -> StateChange {
    StateChange::Set {
        address: address.to_string(),
        value: value.to_vec(),
    }
}

/// Entry `i` of Transact's `update` test data: the address is the first 32 bytes of SHA-512 of
/// the 16-digit hex of `i`, the value that hex text.
pub fn update_entry(i: u32) -> (String, Vec<u8>) {
    use sha2::{Digest, Sha512};
    let key = format!("{i:016x}");
    (
        hex::encode(&Sha512::digest(key.as_bytes())[..32]),
        key.into_bytes(),
    )
}

pub fn del(address: &str) -> StateChange {
    StateChange::Delete {
        address: address.to_string(),
    }
}

/// Addresses from a small token alphabet, zero to three tokens deep, so that histories hit
/// shared paths, interior values (prefixes of other addresses) and the root's own value.
pub fn address() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec!["00", "0a", "ab", "cd", "ff"]),
        0..4,
    )
    .prop_map(|tokens| tokens.concat())
}

/// Values including the empty value (distinct from no value) and repeats (duplicate nodes).
pub fn value() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec![vec![], vec![1], vec![2], vec![1, 2], b"0001".to_vec()])
}

/// A change; deletes mostly target addresses likely to exist.
pub fn change() -> impl Strategy<Value = StateChange> {
    prop_oneof![
        3 => (address(), value()).prop_map(|(address, value)| StateChange::Set { address, value }),
        2 => address().prop_map(|address| StateChange::Delete { address }),
    ]
}

pub fn batch() -> impl Strategy<Value = Vec<StateChange>> {
    proptest::collection::vec(change(), 0..6)
}

/// Applies a batch to a model with the trie's rules; `None` if a delete hits an absent
/// address (the whole batch is then refused).
pub fn apply(model: &Model, changes: &[StateChange]) -> Option<Model> {
    let mut next = model.clone();
    for change in changes {
        match change {
            StateChange::Set { address, value } => {
                next.insert(address.clone(), value.clone());
            }
            StateChange::Delete { address } => {
                next.remove(address)?;
            }
        }
    }
    Some(next)
}

/// The batch that takes the state `model` to `target`: deletes of the addresses `target` lacks,
/// then every value of `target` set (a revert to an earlier mapping).
pub fn changes_to(model: &Model, target: &Model) -> Vec<StateChange> {
    let mut changes: Vec<StateChange> = model
        .keys()
        .filter(|a| !target.contains_key(*a))
        .map(|a| del(a))
        .collect();
    changes.extend(target.iter().map(|(a, v)| set(a, v)));
    changes
}

/// Runs a proptest case's `visitor` on a fresh store of `profile` in a temporary directory; a
/// store that cannot be made fails the case, naming the profile.
pub fn on_fresh_store<V>(profile: Profile, visitor: V) -> Result<(), TestCaseError>
where
    V: StoreVisitor<Output = Result<(), TestCaseError>>,
{
    let parent = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let stores = FreshStores::new(profile, parent.path())
        .map_err(|e| TestCaseError::fail(format!("{profile}: {e}")))?;
    stores
        .try_run(TABLES, visitor)
        .map_err(|e| TestCaseError::fail(format!("{profile}: {e}")))?
}

/// Every table's entries, in key order: what a store holds, to compare two stores byte for
/// byte.
pub fn contents<S: Store>(store: &S) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
    let r = store.reader().expect("reader");
    TABLES
        .iter()
        .map(|name| {
            let t = store.table(name).expect("table");
            r.collect(t, &KeyRange::all()).expect("scan")
        })
        .collect()
}
