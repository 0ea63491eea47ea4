//! Untimed runs of `update` on `btree` before a command measures any profile (`headline`,
//! `phases`). The trie keeps batch buffers and node pools per thread and reuses them across
//! runs; its first runs in a process grow them. On the project's VM the first two `update`
//! runs on `btree` took 14% and 8% longer than the later ones, so the first profile measured,
//! `btree`, paid for them, and every ratio against it came out low when a profile gets one run
//! (measured in `results/2026-11-24-vm-trie-warm-up/`, a folder since removed from the tree:
//! `git log --diff-filter=D -- results/2026-11-24-vm-trie-warm-up` finds it).

use std::marker::PhantomData;
use std::path::Path;

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_workloads::Scenario;

use crate::error::MeasureError;

/// Untimed runs of `update` that [`warm_trie`] makes.
pub const TRIE_WARM_RUNS: usize = 2;

/// Proof that [`warm_trie`] ran on this thread: what a measurement that needs a warm trie
/// takes, so its caller can keep the warm-up outside what it samples (a flamegraph). Not
/// `Send`: the pools it vouches for belong to the thread that warmed them.
#[derive(Debug)]
pub struct WarmTrie(PhantomData<*const ()>);

/// Runs `update` [`TRIE_WARM_RUNS`] times on fresh `btree` stores under `dir`, on this thread.
pub fn warm_trie(dir: &Path) -> Result<WarmTrie, MeasureError> {
    let stores = FreshStores::new(Profile::Btree, dir)?;
    for _ in 0..TRIE_WARM_RUNS {
        stores.try_run(triebench_merkle::TABLES, UpdateOnce)??;
    }
    Ok(WarmTrie(PhantomData))
}

/// One run of `update`, its outcome dropped.
struct UpdateOnce;

impl StoreVisitor for UpdateOnce {
    type Output = Result<(), MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        Scenario::Update
            .run(&store)
            .map(drop)
            .map_err(|e| MeasureError::scenario(Scenario::Update, Profile::Btree, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warming_runs_update_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        warm_trie(dir.path()).expect("warm-up runs");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("read dir")
            .map(|e| e.expect("entry").path())
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
