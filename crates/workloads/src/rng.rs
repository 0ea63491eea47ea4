//! A tiny seeded PRNG (xorshift64*) for the workloads that Transact runs with an unseeded one:
//! the same seed gives the same choices on every machine, so final roots are fixed.

/// xorshift64* (Vigna): 64-bit state, good enough to pick test subsets, not for cryptography.
#[derive(Debug, Clone)]
pub struct XorShift64Star {
    state: u64,
}

impl XorShift64Star {
    /// A generator seeded with `seed` (zero, the one forbidden state, is replaced by a constant).
    pub fn new(seed: u64) -> Self {
        XorShift64Star {
            state: if seed == 0 {
                0x9e37_79b9_7f4a_7c15
            } else {
                seed
            },
        }
    }

    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..bound` (`bound` > 0), by multiply-shift; the bias is below 2^-32 for the
    /// small bounds used here.
    pub fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(bound)) >> 32) as u32
    }

    /// `count` distinct values of `range`, in the order drawn (a partial Fisher-Yates shuffle),
    /// like `IteratorRandom::choose_multiple` in Transact's tests. Takes the whole range when
    /// `count` exceeds its length.
    pub fn choose_multiple(&mut self, range: std::ops::Range<u32>, count: usize) -> Vec<u32> {
        let mut pool: Vec<u32> = range.collect();
        let count = count.min(pool.len());
        for i in 0..count {
            // `pool.len() - i` fits u32: the pool came from a Range<u32>.
            let j = i + self.below((pool.len() - i) as u32) as usize;
            pool.swap(i, j);
        }
        pool.truncate(count);
        pool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_choices_are_distinct_and_in_range() {
        let mut a = XorShift64Star::new(7);
        let mut b = XorShift64Star::new(7);
        assert_eq!(
            (0..10).map(|_| a.next_u64()).collect::<Vec<_>>(),
            (0..10).map(|_| b.next_u64()).collect::<Vec<_>>()
        );
        let picked = a.choose_multiple(500..1000, 50);
        assert_eq!(picked.len(), 50);
        let mut sorted = picked.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 50, "choices must be distinct");
        assert!(picked.iter().all(|i| (500..1000).contains(i)));
        assert_ne!(
            XorShift64Star::new(8).next_u64(),
            XorShift64Star::new(7).next_u64()
        );
    }

    #[test]
    fn choose_multiple_caps_at_the_range_length() {
        let mut rng = XorShift64Star::new(1);
        let mut all = rng.choose_multiple(0..5, 9);
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3, 4]);
        assert!(rng.choose_multiple(3..3, 2).is_empty());
    }

    #[test]
    fn below_stays_below_the_bound() {
        let mut rng = XorShift64Star::new(42);
        assert!((0..10_000).all(|_| rng.below(3) < 3));
    }
}
