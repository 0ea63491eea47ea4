//! IAVL-bench's bank shape (cosmos/iavl-bench's generated bank plan): keys of 56 bytes, values
//! of 16, versions of 10,000 inserts, then versions of 10,000 updates of keys already held.
//! The authors run 100 versions of inserts; here scale N gives N versions of inserts then N of
//! updates (scale 100 is theirs). Keys become addresses by SHA-512
//! ([`iavl_address`]). Its concurrent readers are not part of the commit stream.

use crate::field::address::iavl_address;
use crate::field::commit::{FieldCommit, Phase};
use crate::rng::XorShift64Star;

/// Key length, bytes.
pub const KEY_BYTES: usize = 56;
/// Value length, bytes.
pub const VALUE_BYTES: usize = 16;
/// Inserts (then updates) per version.
pub const PER_VERSION: usize = 10_000;

/// IAVL-bench's commits at a scale, seeded.
#[derive(Debug)]
pub struct IavlCommits {
    scale: u64,
    rng: XorShift64Star,
    version: u64,
    /// Every key inserted so far, as its address.
    held: Vec<String>,
}

impl IavlCommits {
    /// `scale` versions of inserts then `scale` of updates (0 is taken as 1).
    pub fn new(scale: u64, seed: u64) -> Self {
        IavlCommits {
            scale: scale.max(1),
            rng: XorShift64Star::new(seed),
            version: 0,
            held: Vec::new(),
        }
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.rng.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

impl Iterator for IavlCommits {
    type Item = (Phase, FieldCommit);

    fn next(&mut self) -> Option<Self::Item> {
        if self.version >= 2 * self.scale {
            return None;
        }
        self.version += 1;
        let mut commit = FieldCommit::default();
        if self.version <= self.scale {
            for _ in 0..PER_VERSION {
                let key = self.bytes(KEY_BYTES);
                let address = iavl_address(&key);
                let value = self.bytes(VALUE_BYTES);
                self.held.push(address.clone());
                commit.inserts.push((address, value));
            }
        } else {
            let held = self.held.len() as u32;
            let mut picked = std::collections::BTreeSet::new();
            while picked.len() < PER_VERSION.min(self.held.len()) {
                picked.insert(self.rng.below(held) as usize);
            }
            for i in picked {
                let value = self.bytes(VALUE_BYTES);
                commit.updates.push((self.held[i].clone(), value));
            }
        }
        Some((Phase::Timed, commit))
    }
}
