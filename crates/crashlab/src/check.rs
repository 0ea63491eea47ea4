//! The check after a crash: reopen the store, check every acknowledged root
//! ([`crate::verify::check_roots`]), and commit once more to show the store still works.

use std::path::Path;

use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor};
use triebench_merkle::MerkleTrie;

use crate::batches::BatchGen;
use crate::error::CrashError;
use crate::verify::{check_roots, RootFate, RoundCheck};

/// Checks the acknowledged roots and commits once more, on the reopened store; returns the
/// check and the further commit's root.
pub(crate) struct CheckVisitor<'a> {
    roots: &'a [String],
    seed: u64,
}

impl<'a> CheckVisitor<'a> {
    /// Checks `roots` (in acknowledgement order); the further commit's batch comes from `seed`.
    pub(crate) fn new(roots: &'a [String], seed: u64) -> Self {
        CheckVisitor { roots, seed }
    }
}

impl StoreVisitor for CheckVisitor<'_> {
    type Output = Result<(RoundCheck, String), CrashError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let check = check_roots(&store, self.roots).map_err(CrashError::Unreadable)?;
        let further = || -> Result<String, triebench_merkle::MerkleError> {
            let mut trie = MerkleTrie::new(&store)?;
            if let Some(root) = check.newest_intact() {
                trie.set_root(root)?;
            }
            let live = trie.leaves("")?.into_iter().map(|(a, _)| a);
            let batch = BatchGen::new(self.seed, live).next_batch();
            trie.commit(&batch)
        };
        let root = further().map_err(CrashError::CommitAfterRecovery)?;
        let after = check_roots(&store, std::slice::from_ref(&root))
            .map_err(CrashError::UnreadableAfterCommit)?;
        if after.roots.first().map(|c| &c.fate) != Some(&RootFate::Intact) {
            return Err(CrashError::CommitNotReadBack(root));
        }
        Ok((check, root))
    }
}

/// Reopens the store of `profile` in `dir` and checks `roots` on it.
pub(crate) fn check(
    profile: Profile,
    dir: &Path,
    roots: &[String],
    seed: u64,
) -> Result<(RoundCheck, String), CrashError> {
    let spec = BackendSpec::new(profile, Some(dir.to_path_buf()))?;
    spec.open(triebench_merkle::TABLES, CheckVisitor { roots, seed })
        .map_err(CrashError::NoLongerOpens)?
}
