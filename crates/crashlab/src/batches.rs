//! [`BatchGen`]: random commit batches shaped like production state: 70-hex addresses (a 6-hex namespace
//! prefix and 64 random hex characters), values from 1 byte to 4 KiB, and a mix of new
//! addresses, updates of live ones and deletes, keeping the state between about 16 and 64
//! leaves so a check of every root stays cheap.

use std::collections::BTreeSet;

use triebench_merkle::StateChange;

use triebench_workloads::rng::XorShift64Star;

/// The namespace prefix of every generated address (6 hex characters, like Sawtooth's).
pub const NAMESPACE: &str = "c7a5e1";
/// The largest generated value, in bytes.
pub const MAX_VALUE: usize = 4096;
/// The most changes one batch holds.
pub const MAX_BATCH: u32 = 8;
/// Above this many live leaves, deletes outnumber new addresses.
const HIGH_WATER: usize = 64;
/// Below this many live leaves, no deletes.
const LOW_WATER: usize = 16;

/// Seeded batch generator that knows which addresses hold a value, so its deletes are valid.
#[derive(Debug, Clone)]
pub struct BatchGen {
    rng: XorShift64Star,
    live: BTreeSet<String>,
}

impl BatchGen {
    /// A generator seeded with `seed` over a state whose addresses are `live` (the leaves of the
    /// root the child resumes from).
    pub fn new(seed: u64, live: impl IntoIterator<Item = String>) -> Self {
        BatchGen {
            rng: XorShift64Star::new(seed),
            live: live.into_iter().collect(),
        }
    }

    /// How many addresses hold a value after the batches handed out so far.
    #[cfg(test)]
    pub fn live(&self) -> usize {
        self.live.len()
    }

    /// The next batch (1 to [`MAX_BATCH`] changes); the generator assumes it gets committed.
    pub fn next_batch(&mut self) -> Vec<StateChange> {
        let size = 1 + self.rng.below(MAX_BATCH);
        let mut changes = Vec::with_capacity(size as usize);
        let mut touched = BTreeSet::new();
        for _ in 0..size {
            let roll = self.rng.below(100);
            let delete_share = if self.live.len() > HIGH_WATER {
                60
            } else if self.live.len() < LOW_WATER {
                0
            } else {
                25
            };
            if roll < delete_share {
                if let Some(address) = self.pick_live(&touched) {
                    self.live.remove(&address);
                    touched.insert(address.clone());
                    changes.push(StateChange::Delete { address });
                    continue;
                }
            }
            let address = if roll < delete_share + 20 {
                self.pick_live(&touched)
                    .unwrap_or_else(|| self.fresh_address())
            } else {
                self.fresh_address()
            };
            self.live.insert(address.clone());
            touched.insert(address.clone());
            let value = self.value();
            changes.push(StateChange::Set { address, value });
        }
        changes
    }

    /// A live address not yet changed in this batch, if any.
    fn pick_live(&mut self, touched: &BTreeSet<String>) -> Option<String> {
        let candidates: Vec<&String> = self.live.difference(touched).collect();
        if candidates.is_empty() {
            return None;
        }
        let i = self.rng.below(candidates.len() as u32) as usize;
        Some(candidates[i].clone())
    }

    fn fresh_address(&mut self) -> String {
        let mut address = String::with_capacity(70);
        address.push_str(NAMESPACE);
        for _ in 0..4 {
            address.push_str(&format!("{:016x}", self.rng.next_u64()));
        }
        address
    }

    /// A value of 1..=4096 bytes: mostly small, sometimes a few KiB, never all alike.
    fn value(&mut self) -> Vec<u8> {
        let len = if self.rng.below(4) == 0 {
            1 + self.rng.below(MAX_VALUE as u32) as usize
        } else {
            1 + self.rng.below(256) as usize
        };
        let mut value = Vec::with_capacity(len);
        while value.len() < len {
            value.extend_from_slice(&self.rng.next_u64().to_le_bytes());
        }
        value.truncate(len);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_valid_and_production_shaped() {
        let mut generator = BatchGen::new(7, Vec::new());
        let mut state = std::collections::BTreeMap::new();
        for _ in 0..500 {
            let batch = generator.next_batch();
            assert!(!batch.is_empty() && batch.len() <= MAX_BATCH as usize);
            for change in batch {
                match change {
                    StateChange::Set { address, value } => {
                        assert_eq!(address.len(), 70);
                        assert!(address.starts_with(NAMESPACE));
                        assert!((1..=MAX_VALUE).contains(&value.len()));
                        state.insert(address, value);
                    }
                    StateChange::Delete { address } => {
                        assert!(
                            state.remove(&address).is_some(),
                            "delete of an absent address"
                        );
                    }
                }
            }
            assert_eq!(state.len(), generator.live());
        }
        assert!(generator.live() <= HIGH_WATER + MAX_BATCH as usize);
    }
}
