//! [`CommitsDigest`]: SHA-256 over a field workload's commits, so two programs that ran "the
//! same" commits can show they did: `triebench field` computes it over the commits our trie
//! ran, `merk-runner` (crates/merk-compare) over those it gave Merk, and the run stops when
//! the two differ.
//!
//! What is hashed, per commit in order: the phase (one byte: 0 setup, 1 timed), then the
//! inserts, updates, deletes and reads, each as a count (8 bytes, little-endian) followed by
//! its items; an address is its length (8 bytes LE) then its bytes, a value likewise. Every
//! part is length-prefixed, so no two different commit streams hash the same input.

use sha2::{Digest, Sha256};

use crate::field::commit::{FieldCommit, Phase};

/// A running SHA-256 over commits.
#[derive(Debug, Clone, Default)]
pub struct CommitsDigest {
    hasher: Sha256,
    commits: u64,
}

impl CommitsDigest {
    /// A digest of no commits yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.hasher.update((bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
    }

    /// Adds one commit and its phase.
    pub fn add(&mut self, phase: Phase, commit: &FieldCommit) {
        self.hasher.update([match phase {
            Phase::Setup => 0u8,
            Phase::Timed => 1,
        }]);
        for writes in [&commit.inserts, &commit.updates] {
            self.hasher.update((writes.len() as u64).to_le_bytes());
            for (address, value) in writes {
                self.bytes(address.as_bytes());
                self.bytes(value);
            }
        }
        for addresses in [&commit.deletes, &commit.reads] {
            self.hasher.update((addresses.len() as u64).to_le_bytes());
            for address in addresses {
                self.bytes(address.as_bytes());
            }
        }
        self.commits += 1;
    }

    /// Commits added so far.
    pub fn commits(&self) -> u64 {
        self.commits
    }

    /// The digest, 64 hex digits.
    pub fn finish(self) -> String {
        hex::encode(self.hasher.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::CommitsDigest;
    use crate::field::commit::{FieldCommit, Phase};
    use crate::field::merk::MerkCommits;

    fn digest(commits: impl IntoIterator<Item = (Phase, FieldCommit)>) -> String {
        let mut digest = CommitsDigest::new();
        for (phase, commit) in commits {
            digest.add(phase, &commit);
        }
        digest.finish()
    }

    #[test]
    fn the_same_commits_hash_the_same_and_others_do_not() {
        let one = digest(MerkCommits::new(1, 7));
        assert_eq!(one, digest(MerkCommits::new(1, 7)));
        assert_eq!(one.len(), 64);
        assert_ne!(one, digest(MerkCommits::new(1, 8)));
    }

    #[test]
    fn phase_and_section_are_part_of_the_input() {
        let write = FieldCommit {
            inserts: vec![("ab".into(), vec![1])],
            ..FieldCommit::default()
        };
        let update = FieldCommit {
            updates: write.inserts.clone(),
            ..FieldCommit::default()
        };
        let setup = digest([(Phase::Setup, write.clone())]);
        assert_ne!(setup, digest([(Phase::Timed, write.clone())]));
        assert_ne!(setup, digest([(Phase::Setup, update)]));
        assert_ne!(digest([]), digest([(Phase::Setup, FieldCommit::default())]));
    }
}
