//! SplitMix64: a tiny, well-known seeded generator (Steele, Lea and Flood 2014). The crash
//! states must be reproducible from (seed, state index) alone and slowfs needs nothing more,
//! so a dozen lines here rather than a dependency.

/// A seeded SplitMix64 stream.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// A stream for one item of a family: `seed` mixed with `index` (a state number).
    pub fn derive(seed: u64, index: u64) -> SplitMix64 {
        let mut base = SplitMix64(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
        SplitMix64(base.next_u64())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// True with probability `p` (0.0 to 1.0).
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_repeat_from_their_seed_and_differ_between_items() {
        let a: Vec<u64> = (0..4).map(|_| SplitMix64::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = SplitMix64::derive(7, 1);
        let mut y = SplitMix64::derive(7, 2);
        assert_ne!(x.next_u64(), y.next_u64());
        let mut r = SplitMix64::new(3);
        assert!((0..100).all(|_| r.below(5) < 5));
        assert_eq!(r.below(0), 0);
    }
}
