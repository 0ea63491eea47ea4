//! Every compatibility vector of the design brief, committed on the btree store.

use sha2::{Digest, Sha512};
use triebench_kv::btree::BTreeStore;
use triebench_merkle::{MerkleError, MerkleTrie, StateChange, EMPTY_ROOT, TABLES};

fn store() -> BTreeStore {
    BTreeStore::open(TABLES).expect("btree store")
}

fn set(address: &str, value: &[u8]) -> StateChange {
    StateChange::Set {
        address: address.to_string(),
        value: value.to_vec(),
    }
}

fn del(address: &str) -> StateChange {
    StateChange::Delete {
        address: address.to_string(),
    }
}

/// Commits `changes` on a fresh trie, checks compute agrees, returns the root.
fn root_of(changes: &[StateChange]) -> String {
    let store = store();
    let trie = MerkleTrie::new(&store).unwrap();
    let virtual_root = trie.compute(changes).unwrap();
    let root = trie.commit(changes).unwrap();
    assert_eq!(root, virtual_root, "compute and commit disagree");
    root
}

fn update_key(i: u32) -> (String, String) {
    let key = format!("{i:016x}");
    let address = hex::encode(&Sha512::digest(key.as_bytes())[..32]);
    (address, key)
}

#[test]
fn empty_root() {
    let store = store();
    assert_eq!(MerkleTrie::new(&store).unwrap().root(), EMPTY_ROOT);
    assert_eq!(
        EMPTY_ROOT,
        "708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6"
    );
}

#[test]
fn single_value() {
    assert_eq!(
        root_of(&[set("abcd", b"data_value")]),
        "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870"
    );
    assert_eq!(
        root_of(&[set("1234", b"deletable")]),
        "db73865199b319863790ff8505098b3302d4a10595a809c465364e55ff9e2fac"
    );
}

#[test]
fn three_siblings() {
    assert_eq!(
        root_of(&[
            set("ab0000", b"0001"),
            set("ab0a01", b"0002"),
            set("abff00", b"0003")
        ]),
        "19fcc3dfc5173fb3b12b55086f02c11f42a645a58da9a3f28d47b174946c0e3d"
    );
}

#[test]
fn length_quirk_boundary() {
    assert_eq!(
        root_of(&[set("ab", &vec![b'x'; 65_536])]),
        "3fdce3c5df3b291a188e41eba24a65f2b88b49f1ea5ed23c3c25613517697754"
    );
    assert_eq!(
        root_of(&[set("ab", &vec![b'x'; 65_535])]),
        "9b93726ccb5449e836181810fc79191117a97eebf34d144f1d38bef80d83505e"
    );
}

#[test]
fn interior_value() {
    let expected = "d162fcd181fc3857500ce987636fc7dd88e6ceaea734ab7a7a7c71dce316b179";
    assert_eq!(root_of(&[set("ab", &[1]), set("abcd", &[2])]), expected);
    assert_eq!(root_of(&[set("abcd", &[2]), set("ab", &[1])]), expected);
    // Committed one at a time, either order.
    let store = store();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let r = trie.commit(&[set("abcd", &[2])]).unwrap();
    trie.set_root(&r).unwrap();
    assert_eq!(trie.commit(&[set("ab", &[1])]).unwrap(), expected);
}

#[test]
fn update_workload_roots() {
    let store = store();
    let mut trie = MerkleTrie::new(&store).unwrap();
    let keys: Vec<(String, String)> = (0..1000).map(update_key).collect();
    for (address, key) in &keys {
        let root = trie.commit(&[set(address, key.as_bytes())]).unwrap();
        trie.set_root(&root).unwrap();
    }
    assert_eq!(
        trie.root(),
        "8a5b72e8c541e97267d481e59f389774ff656624bb8cb0b0c7ce1fb59ab35a5f"
    );
    // One batch of the same sets gives the same root.
    let batch: Vec<StateChange> = keys.iter().map(|(a, k)| set(a, k.as_bytes())).collect();
    assert_eq!(root_of(&batch), trie.root());

    let mut changes: Vec<StateChange> = keys[..50].iter().map(|(a, _)| set(a, b"5.0")).collect();
    changes.extend(keys[500..550].iter().map(|(a, _)| del(a)));
    let virtual_root = trie.compute(&changes).unwrap();
    let expected = "26c1c3b4cd2c6fcd1726f15829e674c78b042822983bd62250b12d2f42c5a8bc";
    assert_eq!(virtual_root, expected);
    assert!(matches!(
        MerkleTrie::at_root(&store, &virtual_root),
        Err(MerkleError::UnknownRoot { .. })
    ));
    let root = trie.commit(&changes).unwrap();
    assert_eq!(root, expected);
    trie.set_root(&root).unwrap();
    for (i, (address, key)) in keys.iter().enumerate() {
        let expected = match i {
            0..50 => Some(b"5.0".to_vec()),
            500..550 => None,
            _ => Some(key.as_bytes().to_vec()),
        };
        assert_eq!(trie.get(address).unwrap(), expected, "key {i}");
    }
    assert_eq!(trie.leaves("").unwrap().len(), 950);
}
