//! Merk's published benchmark (nomic-io/merk at `0be858c`, its README's "Benchmarks" and
//! `benches/merk.rs`): a tree of random keys built in batches of 2,000, then random inserts
//! (new keys), random updates (keys held) and random reads (keys held), the writes in batches
//! of 2,000 as its benches apply them, the reads one `get` each.
//!
//! * Keys are 16 random bytes and values 40, as the README states the published figures'
//!   tree (the bench code at that commit writes 8-byte keys, a random `u64` big-endian, and
//!   60-byte values; the figures are quoted for the README's shape, so that is the one here).
//! * Scale N: a setup fill of N × 10,000 keys in 5N batches of 2,000 (untimed, as Merk builds
//!   its tree before `b.iter`), then N timed batches of 2,000 inserts of new keys, N of 2,000
//!   updates of distinct held keys (new values), and N of 2,000 reads of held keys. Scale 100
//!   is the published 1M-node tree (it grows to 1.2M with the inserts; Merk's own insert bench
//!   grows its tree as it iterates too).
//! * Each bench of Merk's starts from a fresh 1M tree; here the phases run one after another on
//!   one tree, inserts first.
//!
//! Keys become addresses by [`merk_address`]: the namespace, the 16 key bytes, then 16 zero
//! bytes (injective, no hash: the key's randomness spreads the leaves over the trie).

use std::collections::HashSet;

use crate::field::address::merk_address;
use crate::field::commit::{FieldCommit, Phase};
use crate::rng::XorShift64Star;

/// Key length, bytes.
pub const KEY_BYTES: usize = 16;
/// Value length, bytes.
pub const VALUE_BYTES: usize = 40;
/// Keys per batch (Merk's `batch_size`), writes and reads alike.
pub const BATCH: usize = 2_000;
/// Setup batches per unit of scale (5 × 2,000 = 10,000 keys).
pub const SETUP_BATCHES_PER_SCALE: u64 = 5;

/// Which timed phase a batch belongs to, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Setup,
    Inserts,
    Updates,
    Reads,
    Done,
}

/// Merk's commits at a scale, seeded.
#[derive(Debug)]
pub struct MerkCommits {
    scale: u64,
    rng: XorShift64Star,
    step: Step,
    /// Batches done in the current step.
    done: u64,
    /// Every key held, in insertion order (picks index it).
    held: Vec<[u8; KEY_BYTES]>,
    /// The same keys, to keep inserts new.
    seen: HashSet<[u8; KEY_BYTES]>,
}

impl MerkCommits {
    /// The workload at `scale` (0 is taken as 1).
    pub fn new(scale: u64, seed: u64) -> Self {
        MerkCommits {
            scale: scale.max(1),
            rng: XorShift64Star::new(seed),
            step: Step::Setup,
            done: 0,
            held: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for chunk in out.chunks_mut(8) {
            let word = self.rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        out
    }

    fn value(&mut self) -> Vec<u8> {
        self.bytes::<VALUE_BYTES>().to_vec()
    }

    /// A batch of new random keys, each with a value.
    fn inserts(&mut self) -> FieldCommit {
        let mut inserts = Vec::with_capacity(BATCH);
        while inserts.len() < BATCH {
            let key = self.bytes::<KEY_BYTES>();
            if !self.seen.insert(key) {
                continue;
            }
            self.held.push(key);
            let value = self.value();
            inserts.push((merk_address(&key), value));
        }
        FieldCommit {
            inserts,
            ..FieldCommit::default()
        }
    }

    /// Indices of held keys: `BATCH` distinct ones (updates), or drawn with repeats (reads).
    fn picks(&mut self, distinct: bool) -> Vec<usize> {
        let held = u32::try_from(self.held.len()).unwrap_or(u32::MAX);
        if distinct {
            // Rejection, as iavl-bank picks: the batch is small beside the keys held.
            let mut picked = std::collections::BTreeSet::new();
            while picked.len() < BATCH.min(held as usize) {
                picked.insert(self.rng.below(held) as usize);
            }
            picked.into_iter().collect()
        } else {
            (0..BATCH).map(|_| self.rng.below(held) as usize).collect()
        }
    }

    fn steps(&self, step: Step) -> u64 {
        match step {
            Step::Setup => self.scale * SETUP_BATCHES_PER_SCALE,
            Step::Inserts | Step::Updates | Step::Reads => self.scale,
            Step::Done => 0,
        }
    }
}

impl Iterator for MerkCommits {
    type Item = (Phase, FieldCommit);

    fn next(&mut self) -> Option<Self::Item> {
        while self.step != Step::Done && self.done >= self.steps(self.step) {
            self.done = 0;
            self.step = match self.step {
                Step::Setup => Step::Inserts,
                Step::Inserts => Step::Updates,
                Step::Updates => Step::Reads,
                Step::Reads | Step::Done => Step::Done,
            };
        }
        self.done += 1;
        match self.step {
            Step::Setup => Some((Phase::Setup, self.inserts())),
            Step::Inserts => Some((Phase::Timed, self.inserts())),
            Step::Updates => {
                let mut updates = Vec::with_capacity(BATCH);
                for i in self.picks(true) {
                    let value = self.value();
                    updates.push((merk_address(&self.held[i]), value));
                }
                Some((
                    Phase::Timed,
                    FieldCommit {
                        updates,
                        ..FieldCommit::default()
                    },
                ))
            }
            Step::Reads => {
                let reads = self
                    .picks(false)
                    .into_iter()
                    .map(|i| merk_address(&self.held[i]))
                    .collect();
                Some((
                    Phase::Timed,
                    FieldCommit {
                        reads,
                        ..FieldCommit::default()
                    },
                ))
            }
            Step::Done => None,
        }
    }
}
