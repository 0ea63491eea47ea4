//! Workloads of any size for the scalable benches: fresh set batches numbered like `update`'s
//! keys, and preloading a trie with a given number of leaves.

use triebench_kv::Store;
use triebench_merkle::{MerkleError, MerkleTrie, StateChange};

use crate::scenarios::update_address;

/// Leaves per commit while preloading.
pub const PRELOAD_BATCH: usize = 1000;

/// `n` fresh set changes numbered from `first`: address [`update_address`]`(i)`, value the
/// 16-character hex of `i` (the `update` key scheme, so any range is new to a trie holding
/// `0..first`).
pub fn fresh_sets(first: usize, n: usize) -> Vec<StateChange> {
    (first..first + n)
        .map(|i| StateChange::Set {
            address: update_address(i as u32),
            value: format!("{i:016x}").into_bytes(),
        })
        .collect()
}

/// Loads leaves `0..leaves` into the store from the empty root, in commits of up to
/// [`PRELOAD_BATCH`], and returns the final root.
pub fn preload<S: Store>(store: &S, leaves: usize) -> Result<String, MerkleError> {
    let mut trie = MerkleTrie::new(store)?;
    let mut loaded = 0;
    while loaded < leaves {
        let n = (leaves - loaded).min(PRELOAD_BATCH);
        let root = trie.commit(&fresh_sets(loaded, n))?;
        trie.set_root(&root)?;
        loaded += n;
    }
    Ok(trie.root().to_string())
}
