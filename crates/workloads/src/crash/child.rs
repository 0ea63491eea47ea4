//! The crash-test child's loop: resume from a root, commit random batches one after another,
//! and acknowledge each new root the moment `commit` has returned. It never stops by itself;
//! the parent kills it.

use triebench_kv::Store;
use triebench_merkle::MerkleTrie;

use super::batches::BatchGen;
use crate::error::WorkloadError;

/// Why the child's loop stopped (it never stops on its own).
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// The trie or the store failed: resuming, or committing a batch.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The acknowledgement could not be delivered (the parent went away).
    #[error("cannot acknowledge a root: {0}")]
    Ack(std::io::Error),
}

/// Resumes from `start` (`None`: the empty root) and commits batches from a generator seeded
/// with `seed`, calling `ack` with each new root right after its commit returned, until
/// something fails. `ready` is called once the store is open and the first commit is about to
/// start, so the parent can time its kill from there.
pub fn commit_forever<S: Store>(
    store: &S,
    start: Option<&str>,
    seed: u64,
    mut ready: impl FnMut() -> std::io::Result<()>,
    mut ack: impl FnMut(&str) -> std::io::Result<()>,
) -> Result<std::convert::Infallible, ChildError> {
    let mut trie = MerkleTrie::new(store).map_err(WorkloadError::from)?;
    if let Some(root) = start {
        trie.set_root(root).map_err(WorkloadError::from)?;
    }
    let live = trie
        .leaves("")
        .map_err(WorkloadError::from)?
        .into_iter()
        .map(|(address, _)| address);
    let mut batches = BatchGen::new(seed, live);
    ready().map_err(ChildError::Ack)?;
    loop {
        let batch = batches.next_batch();
        let root = trie.commit(&batch).map_err(WorkloadError::from)?;
        ack(&root).map_err(ChildError::Ack)?;
        trie.set_root(&root).map_err(WorkloadError::from)?;
    }
}
