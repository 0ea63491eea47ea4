//! Production-shaped state: 70-hex-character addresses (a 6-character namespace prefix, as
//! Sawtooth transaction families use, then 64 hex), values of varied sizes, and the writer's
//! changes (updates of existing keys, inserts, deletes) over a window of live keys.
//!
//! Key `i` has a fixed address ([`address`]); the live keys are the indices `lo..hi` of a
//! [`KeyWindow`]: deletes take the oldest keys, inserts append new ones, updates pick any live
//! key. A reader holding a window taken with a root therefore always reads keys that root holds.

use triebench_kv::Store;
use triebench_merkle::{MerkleTrie, StateChange};

use crate::load::error::LoadError;
use crate::rng::XorShift64Star;

/// Namespace prefixes keys are spread over (Sawtooth's intkey, settings, block-info and xo).
pub const NAMESPACES: [&str; 4] = ["1cf126", "000000", "00b10c", "5b7349"];

/// Leaves per commit while preloading.
pub const PRELOAD_BATCH: u64 = 1000;

/// What the state looks like: how many leaves, how big their values are, which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateShape {
    /// Leaves preloaded.
    pub size: u64,
    /// Smallest value, bytes.
    pub value_min: usize,
    /// Largest value, bytes.
    pub value_max: usize,
    /// Seed of addresses and values.
    pub seed: u64,
}

impl StateShape {
    /// Checks the sizes: at least one leaf, `1 <= value_min <= value_max <= 1 MiB`.
    pub fn validate(&self) -> Result<(), LoadError> {
        if self.size == 0 {
            return Err(LoadError::Config(
                "the state size must be at least 1".into(),
            ));
        }
        if self.value_min == 0 || self.value_min > self.value_max || self.value_max > 1 << 20 {
            return Err(LoadError::Config(format!(
                "value sizes must satisfy 1 <= min <= max <= 1 MiB, got {}..{}",
                self.value_min, self.value_max
            )));
        }
        Ok(())
    }
}

/// splitmix64: a fast, well-mixed function of one word.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 70-character address of key `i`: a namespace from [`NAMESPACES`], then 64 hex
/// characters that spread keys uniformly over the trie.
pub fn address(seed: u64, i: u64) -> String {
    let base = mix(seed ^ mix(i));
    let mut out = String::with_capacity(70);
    out.push_str(NAMESPACES[(base % NAMESPACES.len() as u64) as usize]);
    for w in 0..4u64 {
        out.push_str(&format!("{:016x}", mix(base.wrapping_add(w))));
    }
    out
}

/// A value of a size drawn log-uniformly between the shape's bounds (small values common,
/// large ones present), its bytes drawn from `rng`.
pub fn value(shape: &StateShape, rng: &mut XorShift64Star) -> Vec<u8> {
    let (lo, hi) = (shape.value_min as f64, shape.value_max as f64);
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let len = ((lo.ln() + u * (hi.ln() - lo.ln())).exp().round() as usize)
        .clamp(shape.value_min, shape.value_max);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The live keys: indices `lo..hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyWindow {
    /// Oldest live key.
    pub lo: u64,
    /// One past the newest live key.
    pub hi: u64,
}

impl KeyWindow {
    /// How many keys are live.
    pub fn len(&self) -> u64 {
        self.hi - self.lo
    }

    /// Whether no key is live.
    pub fn is_empty(&self) -> bool {
        self.hi == self.lo
    }

    /// A uniformly drawn live key (`None` when there is none).
    pub fn pick(&self, rng: &mut XorShift64Star) -> Option<u64> {
        if self.is_empty() {
            return None;
        }
        Some(self.lo + rng.next_u64() % self.len())
    }
}

/// The writer's mix of change kinds, in percent (they need not sum to 100: weights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    /// Weight of updates of existing keys.
    pub update: u32,
    /// Weight of inserts of new keys.
    pub insert: u32,
    /// Weight of deletes of existing keys.
    pub delete: u32,
}

impl Default for Mix {
    /// 80% updates, 10% inserts, 10% deletes: the state size stays level on average.
    fn default() -> Self {
        Mix {
            update: 80,
            insert: 10,
            delete: 10,
        }
    }
}

/// One commit of `k` changes drawn with `mix` over `window`; returns the changes and the window
/// after them. Deletes take the oldest keys and updates never touch a key this commit deletes,
/// so every delete names a live key and every live key keeps a value.
pub fn plan_commit(
    shape: &StateShape,
    mix: &Mix,
    window: KeyWindow,
    k: usize,
    rng: &mut XorShift64Star,
) -> (Vec<StateChange>, KeyWindow) {
    let total = u64::from(mix.update + mix.insert + mix.delete).max(1);
    let (mut updates, mut inserts, mut deletes) = (0usize, 0u64, 0u64);
    for _ in 0..k {
        let r = rng.next_u64() % total;
        if r < u64::from(mix.update) {
            updates += 1;
        } else if r < u64::from(mix.update + mix.insert) {
            inserts += 1;
        } else {
            deletes += 1;
        }
    }
    // Keep at least one live key for updates and readers.
    deletes = deletes.min(window.len().saturating_sub(1));
    let mut changes = Vec::with_capacity(k);
    for i in window.lo..window.lo + deletes {
        changes.push(StateChange::Delete {
            address: address(shape.seed, i),
        });
    }
    let kept = KeyWindow {
        lo: window.lo + deletes,
        hi: window.hi,
    };
    for _ in 0..updates {
        if let Some(i) = kept.pick(rng) {
            changes.push(StateChange::Set {
                address: address(shape.seed, i),
                value: value(shape, rng),
            });
        }
    }
    for i in window.hi..window.hi + inserts {
        changes.push(StateChange::Set {
            address: address(shape.seed, i),
            value: value(shape, rng),
        });
    }
    let after = KeyWindow {
        lo: kept.lo,
        hi: window.hi + inserts,
    };
    (changes, after)
}

/// Loads keys `0..shape.size` from the empty root in commits of [`PRELOAD_BATCH`], pruning each
/// replaced root, calling `progress` with the count loaded after each commit; returns the root
/// and the live window. (Runs under load do not prune: readers may still read older roots.)
pub fn preload<S: Store>(
    store: &S,
    shape: &StateShape,
    progress: &mut dyn FnMut(u64),
) -> Result<(String, KeyWindow), LoadError> {
    shape.validate()?;
    let mut trie = MerkleTrie::new(store)?;
    let mut rng = XorShift64Star::new(shape.seed ^ 0x5eed);
    let mut loaded = 0;
    while loaded < shape.size {
        let n = (shape.size - loaded).min(PRELOAD_BATCH);
        let batch: Vec<StateChange> = (loaded..loaded + n)
            .map(|i| StateChange::Set {
                address: address(shape.seed, i),
                value: value(shape, &mut rng),
            })
            .collect();
        let root = trie.commit(&batch)?;
        // Prune the replaced root (never the empty one, which is shared and kept), as a node
        // pruning old state roots would: without it, every batch's replaced interior nodes stay
        // and a large preload writes mostly garbage. In a transaction of its own: in the
        // commit's, a fill to 10^6 was no faster and left LMDB more free pages
        // (docs/findings/grow.md).
        if loaded > 0 {
            MerkleTrie::prune(store, trie.root())?;
        }
        trie.set_root(&root)?;
        loaded += n;
        progress(loaded);
    }
    Ok((
        trie.root().to_string(),
        KeyWindow {
            lo: 0,
            hi: shape.size,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> StateShape {
        StateShape {
            size: 100,
            value_min: 32,
            value_max: 1024,
            seed: 7,
        }
    }

    #[test]
    fn addresses_are_70_lowercase_hex_with_a_known_namespace_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..2000 {
            let a = address(7, i);
            assert_eq!(a.len(), 70);
            assert!(a
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
            assert!(NAMESPACES.contains(&&a[..6]));
            assert!(seen.insert(a));
        }
    }

    #[test]
    fn values_stay_within_bounds_and_vary_in_size() {
        let mut rng = XorShift64Star::new(1);
        let sizes: Vec<usize> = (0..2000).map(|_| value(&shape(), &mut rng).len()).collect();
        assert!(sizes.iter().all(|&s| (32..=1024).contains(&s)));
        assert!(sizes.iter().any(|&s| s < 64) && sizes.iter().any(|&s| s > 512));
    }

    #[test]
    fn a_commit_deletes_the_oldest_inserts_new_and_updates_only_survivors() {
        let mut rng = XorShift64Star::new(3);
        let mix = Mix {
            update: 1,
            insert: 1,
            delete: 1,
        };
        let w = KeyWindow { lo: 10, hi: 20 };
        let (changes, after) = plan_commit(&shape(), &mix, w, 30, &mut rng);
        let deleted = after.lo - w.lo;
        assert!(deleted > 0 && after.hi > w.hi);
        let survivors: Vec<String> = (after.lo..w.hi).map(|i| address(7, i)).collect();
        for c in &changes {
            if let StateChange::Set { address: a, .. } = c {
                let new = (w.hi..after.hi).any(|i| address(7, i) == *a);
                assert!(new || survivors.contains(a));
            }
        }
        assert!(!after.is_empty());
    }

    #[test]
    fn bad_shapes_are_refused() {
        let mut s = shape();
        s.size = 0;
        assert!(s.validate().is_err());
        let mut s = shape();
        s.value_min = 2000;
        assert!(s.validate().is_err());
    }
}
