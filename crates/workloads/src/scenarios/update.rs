//! `update` and the two `update_same_address_space` scenarios: many single-key commits, then
//! one commit mixing sets and deletes, checked against a virtual (computed) root and by reads.

use std::collections::BTreeMap;

use triebench_kv::Store;
use triebench_merkle::{MerkleTrie, StateChange};

use super::check::{expect_eq, expect_model_root, expect_ne, short};
use super::run::Run;
use super::{delete, set, Outcome};
use crate::rng::XorShift64Star;
use crate::WorkloadError;

// How many single-key commits `update` makes before its batch: written in the record's
// vocabulary, as the report divides `update`'s time by it (rustdoc shows the record's doc).
pub use triebench_record::vocabulary::UPDATE_KEYS;
/// How many of the lower half of the keys the batch sets to "5.0", and of the upper half it
/// deletes.
const UPDATE_BATCH_HALF: usize = 50;

/// Seed of the PRNG that picks `update`'s batch (Transact picks with an unseeded `thread_rng`).
pub const UPDATE_SEED: u64 = 0x7472_6965_6265_6e63; // "triebenc"

/// Root after `update`'s 1000 single-key commits (DESIGN.md vector).
pub const UPDATE_LOADED_ROOT: &str =
    "8a5b72e8c541e97267d481e59f389774ff656624bb8cb0b0c7ce1fb59ab35a5f";

/// Root after `update`'s batch of 50 sets and 50 deletes chosen with [`UPDATE_SEED`]; the
/// tests recompute it with the reference model.
pub const UPDATE_FINAL_ROOT: &str =
    "ae05182ba0cda6cc69c4e46c710413f8631c08c8fcd29929e6904ae437cd2bb3";

/// The key of `update`'s `i`th entry: `i` as 16 lowercase hex digits. It is also the value
/// stored under [`update_address`]`(i)`.
pub fn update_key(i: u32) -> String {
    format!("{i:016x}")
}

/// The address of `update`'s `i`th entry: the trie hash (first half of SHA-512, hex) of its key.
pub fn update_address(i: u32) -> String {
    triebench_merkle::hash::hash_hex(update_key(i).as_bytes())
}

/// Which keys `update`'s batch sets to "5.0" (from 0..500) and deletes (from 500..1000).
pub(crate) fn update_batch_choice(seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut rng = XorShift64Star::new(seed);
    let half = UPDATE_KEYS / 2;
    let sets = rng.choose_multiple(0..half, UPDATE_BATCH_HALF);
    let deletes = rng.choose_multiple(half..UPDATE_KEYS, UPDATE_BATCH_HALF);
    (sets, deletes)
}

/// `update`'s commits as batches, for an engine that is not our trie (`triebench engines`):
/// [`UPDATE_KEYS`] single-key commits (address [`update_address`], value [`update_key`]), then
/// the one batch of 50 sets ("5.0") and 50 deletes that [`UPDATE_SEED`] picks. Our trie ends
/// them at [`UPDATE_FINAL_ROOT`].
pub fn update_commits() -> Vec<Vec<StateChange>> {
    let addresses: Vec<String> = (0..UPDATE_KEYS).map(update_address).collect();
    let mut out: Vec<Vec<StateChange>> = (0..UPDATE_KEYS)
        .map(|i| vec![set(&addresses[i as usize], update_key(i).as_bytes())])
        .collect();
    let (set_keys, delete_keys) = update_batch_choice(UPDATE_SEED);
    let mut batch: Vec<StateChange> = set_keys
        .iter()
        .map(|&i| set(&addresses[i as usize], b"5.0"))
        .collect();
    batch.extend(delete_keys.iter().map(|&i| delete(&addresses[i as usize])));
    out.push(batch);
    out
}

/// Transact's `merkle_trie_update`: 1000 single-key commits (address = hash of the key, value =
/// the key), then one commit of 50 sets ("5.0") on lower keys and 50 deletes of upper keys; the
/// computed root must match the committed one and must not be openable before the commit;
/// then every address is read under the final root: 950 values and 50 misses.
pub(super) fn update<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let mut trie = run.trie()?;
    let init = trie.root().to_string();

    let entries: Vec<(String, String)> = (0..UPDATE_KEYS)
        .map(|i| (update_key(i), update_address(i)))
        .collect();
    for (key, address) in &entries {
        let root = run.commit(&trie, &[set(address, key.as_bytes())])?;
        trie.set_root(&root)?;
    }
    expect_ne("root after 1000 commits", &init, trie.root())?;
    expect_eq("root after 1000 commits", UPDATE_LOADED_ROOT, trie.root())?;

    let (set_keys, delete_keys) = update_batch_choice(UPDATE_SEED);
    let mut expected: Vec<Option<&[u8]>> =
        entries.iter().map(|(k, _)| Some(k.as_bytes())).collect();
    let mut changes: Vec<StateChange> = Vec::with_capacity(set_keys.len() + delete_keys.len());
    for &i in &set_keys {
        changes.push(set(&entries[i as usize].1, b"5.0"));
        expected[i as usize] = Some(b"5.0");
    }
    for &i in &delete_keys {
        changes.push(delete(&entries[i as usize].1));
        expected[i as usize] = None;
    }

    let actual_root = commit_checked_batch(&mut run, &trie, &changes)?;
    expect_eq("root after the batch", UPDATE_FINAL_ROOT, &actual_root)?;

    trie.set_root(&actual_root)?;
    for ((_, address), value) in entries.iter().zip(&expected) {
        run.expect_value(&trie, address, *value)?;
    }
    Ok(run.finish(&actual_root))
}

/// Commits `changes` as Transact's update tests do: the computed (virtual) root must not be
/// openable before the commit, the committed root must equal it, and it must differ from the
/// root the batch started at. Returns the committed root.
fn commit_checked_batch<'s, S: Store>(
    run: &mut Run<'s, S>,
    trie: &MerkleTrie<'s, S>,
    changes: &[StateChange],
) -> Result<String, WorkloadError> {
    let virtual_root = trie.compute(changes)?;
    run.expect_unknown_root(&virtual_root, "the computed, uncommitted root")?;
    let actual_root = run.commit(trie, changes)?;
    expect_eq(
        "committed root vs computed root",
        &virtual_root,
        &actual_root,
    )?;
    expect_ne("root after the batch", trie.root(), &actual_root)?;
    Ok(actual_root)
}

// Addresses of Transact's same-address-space scenarios: the name Transact stores as the value,
// and the 70-character address. `asdfg` and `yuiop` share the prefix `e55420`. Public because
// crates/transact-compare runs the same scenarios on Transact's own states.

/// `asdfg` of Transact's same-address-space scenarios: (the value stored, the 70-character
/// address); shares the prefix `e55420` with [`YUIOP`].
pub const ASDFG: (&str, &str) = (
    "asdfg",
    "e5542002d3e2892516fa461cde69e05880609fbad3d38ab69435a189e126de672b620c",
);
/// `qwert` of Transact's same-address-space scenarios: (the value stored, the 70-character
/// address).
pub const QWERT: (&str, &str) = (
    "qwert",
    "c946ee72d38b8c51328f1a5f31eb5bd3300362ad0ca69dab54eff996775c7069216bda",
);
/// `zxcvb` of Transact's same-address-space scenarios: (the value stored, the 70-character
/// address).
pub const ZXCVB: (&str, &str) = (
    "zxcvb",
    "487a6a63c71c9b7b63146ef68858e5d010b4978fd70dda0404d4fad5e298ccc9a560eb",
);
/// `yuiop` of Transact's same-address-space scenarios: (the value stored, the 70-character
/// address); shares the prefix `e55420` with [`ASDFG`].
pub const YUIOP: (&str, &str) = (
    "yuiop",
    "e55420c026596ee643e26fd93927249ea28fb5f359ddbd18bc02562dc7e8dbc93e89b9",
);
/// `hjklk` of Transact's same-address-space scenarios: (the value stored, the 70-character
/// address).
pub const HJKLK: (&str, &str) = (
    "hjklk",
    "cc1370ce67aa16c89721ee947e9733b2a3d2460db5b0ea6410288f426ad8d8040ea641",
);
/// `bnmvc` of Transact's same-address-space scenarios: (the value stored, the 70-character
/// address).
pub const BNMVC: (&str, &str) = (
    "bnmvc",
    "d07e69664286712c3d268ca71464f2b3b2604346f833106f3e0f6a72276e57a16f3e0f",
);

/// Shared body of the same-address-space scenarios: commit `initial` one entry at a time, then
/// one batch setting `updated` to "2.0" and deleting `deleted`; check the computed and committed
/// roots against each other and the model, and read every address back.
fn same_space<S: Store>(
    store: &S,
    initial: &[(&str, &str)],
    updated: &[(&str, &str)],
    deleted: &[(&str, &str)],
) -> Result<Outcome, WorkloadError> {
    let mut run = Run::new(store);
    let mut trie = run.trie()?;
    let init = trie.root().to_string();

    let mut state: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (name, address) in initial {
        let root = run.commit(&trie, &[set(address, name.as_bytes())])?;
        trie.set_root(&root)?;
        state.insert((*address).to_string(), name.as_bytes().to_vec());
    }
    expect_ne("root after the initial commits", &init, trie.root())?;
    expect_model_root("root after the initial commits", &state, trie.root())?;

    let mut changes = Vec::with_capacity(updated.len() + deleted.len());
    for (_, address) in updated {
        changes.push(set(address, b"2.0"));
        state.insert((*address).to_string(), b"2.0".to_vec());
    }
    for (_, address) in deleted {
        changes.push(delete(address));
        state.remove(*address);
    }

    let loaded = trie.root().to_string();
    let actual_root = commit_checked_batch(&mut run, &trie, &changes)?;
    expect_model_root(
        &format!("root after the batch (from {})", short(&loaded)),
        &state,
        &actual_root,
    )?;

    trie.set_root(&actual_root)?;
    for (address, value) in &state {
        run.expect_value(&trie, address, Some(value))?;
    }
    for (_, address) in deleted {
        run.expect_value(&trie, address, None)?;
    }
    Ok(run.finish(&actual_root))
}

/// Transact's `merkle_trie_update_same_address_space`: six single-key commits, then one batch
/// setting all six to "2.0" and deleting three of them, one of which (`yuiop`) shares the prefix
/// `e55420` with a kept address (`asdfg`).
pub(super) fn same_address_space<S: Store>(store: &S) -> Result<Outcome, WorkloadError> {
    let all = [ASDFG, QWERT, ZXCVB, YUIOP, HJKLK, BNMVC];
    same_space(store, &all, &all, &[YUIOP, HJKLK, BNMVC])
}

/// Transact's `merkle_trie_update_same_address_space_with_no_children`: five single-key commits
/// (not `asdfg`), then one batch adding `asdfg` = "2.0" and deleting `yuiop` (same `e55420`
/// prefix, no other children), `hjklk` and `bnmvc`.
pub(super) fn same_address_space_with_no_children<S: Store>(
    store: &S,
) -> Result<Outcome, WorkloadError> {
    same_space(
        store,
        &[QWERT, ZXCVB, YUIOP, HJKLK, BNMVC],
        &[ASDFG],
        &[YUIOP, HJKLK, BNMVC],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_merkle::reference;

    /// The state after `update`'s 1000 commits.
    fn loaded_state() -> BTreeMap<String, Vec<u8>> {
        (0..UPDATE_KEYS)
            .map(|i| (update_address(i), update_key(i).into_bytes()))
            .collect()
    }

    #[test]
    fn loaded_root_is_the_design_vector() {
        assert_eq!(
            reference::root_of(&loaded_state()).unwrap(),
            UPDATE_LOADED_ROOT
        );
    }

    #[test]
    fn model_reproduces_the_design_batch_vector() {
        // DESIGN.md: set keys 0..50 to "5.0" and delete keys 500..550 in one commit.
        let mut state = loaded_state();
        for i in 0..50 {
            state.insert(update_address(i), b"5.0".to_vec());
        }
        for i in 500..550 {
            state.remove(&update_address(i));
        }
        assert_eq!(
            reference::root_of(&state).unwrap(),
            "26c1c3b4cd2c6fcd1726f15829e674c78b042822983bd62250b12d2f42c5a8bc"
        );
    }

    #[test]
    fn update_commits_end_at_the_final_root() {
        let commits = update_commits();
        assert_eq!(commits.len(), UPDATE_KEYS as usize + 1);
        let store = triebench_kv::btree::BTreeStore::open(triebench_merkle::TABLES).unwrap();
        let mut trie = MerkleTrie::new(&store).unwrap();
        for batch in &commits {
            let root = trie.commit(batch).unwrap();
            trie.set_root(&root).unwrap();
        }
        assert_eq!(trie.root(), UPDATE_FINAL_ROOT);
    }

    #[test]
    fn final_root_is_the_models_root_of_the_seeded_batch() {
        let (sets, deletes) = update_batch_choice(UPDATE_SEED);
        assert_eq!(sets.len(), 50);
        assert_eq!(deletes.len(), 50);
        assert!(sets.iter().all(|&i| i < 500));
        assert!(deletes.iter().all(|&i| (500..1000).contains(&i)));
        let mut state = loaded_state();
        for i in sets {
            state.insert(update_address(i), b"5.0".to_vec());
        }
        for i in deletes {
            state.remove(&update_address(i));
        }
        assert_eq!(state.len(), 950);
        assert_eq!(reference::root_of(&state).unwrap(), UPDATE_FINAL_ROOT);
    }

    #[test]
    fn same_space_addresses_share_the_prefix_transact_names() {
        assert_eq!(&ASDFG.1[..6], "e55420");
        assert_eq!(&YUIOP.1[..6], "e55420");
        for (_, address) in [ASDFG, QWERT, ZXCVB, YUIOP, HJKLK, BNMVC] {
            assert_eq!(address.len(), 70);
            assert!(triebench_merkle::check_address(address).is_ok());
        }
    }
}
