//! Differential test: random workloads give the same root on triebench and on Transact 0.4.7,
//! commit by commit.
//!
//! Addresses have a fixed length of three tokens drawn from a few values (so paths share
//! nodes), which keeps clear of the cases where Transact is wrong (values on interior nodes,
//! one-token addresses; see `transact_is_wrong.rs`). Values have lengths on both sides of each
//! CBOR length-header edge (23/24, 255/256, 65535/65536 bytes). Each commit sets and deletes
//! distinct addresses; deletes only hit addresses that hold a value.

use std::collections::BTreeMap;

use proptest::prelude::*;
use triebench_kv::btree::BTreeStore;
use triebench_merkle::{MerkleTrie, TABLES};
use triebench_transact::{Change, Implementation};

/// Value lengths: every CBOR length-header edge, plus a few small ones.
const LENGTHS: [usize; 10] = [0, 1, 23, 24, 255, 256, 65_535, 65_536, 3, 100];

/// One commit's intent: `(address index, Some(length index, fill) = set | None = delete)`.
type Commit = Vec<(u8, Option<(usize, u8)>)>;

fn address(i: u8) -> String {
    // 3 tokens; the first two from 4 values each, so many addresses share interior nodes.
    format!("{:02x}{:02x}{:02x}", (i % 4) * 0x41, (i / 4 % 4) * 0x13, i)
}

fn commits() -> impl Strategy<Value = Vec<Commit>> {
    let change = (
        0u8..32,
        proptest::option::weighted(0.7, (0..LENGTHS.len(), any::<u8>())),
    );
    proptest::collection::vec(proptest::collection::vec(change, 1..8), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn same_root_as_transact_0_4_7_commit_by_commit(plan in commits()) {
        let store = BTreeStore::open(TABLES).unwrap();
        let mut ours = MerkleTrie::new(&store).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let theirs = Implementation::V047Btree.open(dir.path()).unwrap();
        let theirs = theirs.state.as_ref();
        prop_assert_eq!(ours.root(), theirs.initial_root());

        let mut content: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut their_root = theirs.initial_root().to_string();
        for commit in plan {
            let mut changes = Vec::new();
            let mut touched = std::collections::BTreeSet::new();
            for (i, op) in commit {
                let a = address(i);
                if !touched.insert(a.clone()) {
                    continue;
                }
                match op {
                    Some((len, fill)) => {
                        let value = vec![fill; LENGTHS[len]];
                        content.insert(a.clone(), value.clone());
                        changes.push(Change::set(&a, &value));
                    }
                    None if content.remove(&a).is_some() => changes.push(Change::delete(&a)),
                    None => {}
                }
            }
            let triebench: Vec<_> = changes.iter().map(Change::to_triebench).collect();
            let our_root = ours.commit(&triebench).unwrap();
            ours.set_root(&our_root).unwrap();
            their_root = theirs.commit(&their_root, &changes).unwrap();
            prop_assert_eq!(&our_root, &their_root, "after {} changes", changes.len());
            prop_assert_eq!(
                our_root,
                triebench_merkle::reference::root_of(&content).unwrap()
            );
        }
    }
}
