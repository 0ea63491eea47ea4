//! [`UpdateWrites`]: the writes of `update`'s first single-key commits, recorded by running
//! them through the trie on an in-memory store.

use triebench_kv::btree::BTreeStore;
use triebench_merkle::{MerkleError, MerkleTrie, StateChange};

use super::recording::{RecordingStore, Write};
use crate::scenarios::{update_address, update_key};

/// The writes `update`'s first commits make, transaction by transaction.
#[derive(Debug)]
pub struct UpdateWrites {
    /// The table names of the store they were recorded on (the trie's
    /// [`triebench_merkle::TABLES`]); [`Write`]s name tables by index in this list.
    pub table_names: Vec<String>,
    /// The writes of the empty root's set-up ([`MerkleTrie::new`] on an empty store), in the
    /// order committed (one transaction).
    pub setup: Vec<Vec<Write>>,
    /// The writes of each single-key commit `i`, in order: `commits[i]` is the transaction of
    /// `update`'s commit of its `i`th key.
    pub commits: Vec<Vec<Write>>,
    /// The root each commit returned: `roots[i]` after `commits[i]`.
    pub roots: Vec<String>,
}

impl UpdateWrites {
    /// Runs `update`'s first `count` single-key commits exactly as the scenario does (from
    /// [`MerkleTrie::new`] on an empty store, each commit followed by `set_root`) on an
    /// in-memory [`BTreeStore`], and records what each wrote.
    pub fn record(count: u32) -> Result<Self, MerkleError> {
        let store = RecordingStore::new(BTreeStore::open(triebench_merkle::TABLES)?);
        let table_names = triebench_kv::Store::table_names(&store).to_vec();
        let mut roots = Vec::with_capacity(count as usize);
        let setup_len;
        {
            let mut trie = MerkleTrie::new(&store)?;
            setup_len = store.committed();
            for i in 0..count {
                let change = StateChange::Set {
                    address: update_address(i),
                    value: update_key(i).into_bytes(),
                };
                let root = trie.commit(&[change])?;
                trie.set_root(&root)?;
                roots.push(root);
                let committed = store.committed();
                if committed != setup_len + i as usize + 1 {
                    return Err(triebench_kv::KvError::backend(
                        "floor",
                        format!(
                            "update's commit {i} made {} write transactions, not one",
                            committed.saturating_sub(setup_len + i as usize)
                        ),
                    )
                    .into());
                }
            }
        }
        let mut transactions = store.into_transactions();
        let commits = transactions.split_off(setup_len);
        Ok(UpdateWrites {
            table_names,
            setup: transactions,
            commits,
            roots,
        })
    }
}
