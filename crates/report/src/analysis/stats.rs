//! Statistics: a seeded SplitMix64 generator and a percentile bootstrap of the ratio of two means.
//!
//! The ratio of interest is `mean(numerator samples) / mean(denominator samples)` where each
//! sample is criterion's per-iteration time (`times[i] / iters[i]`). Both sample sets are
//! resampled with replacement, independently, in every bootstrap round; the interval is the
//! `(1 - confidence) / 2` and `(1 + confidence) / 2` quantiles of the resampled ratios.

use serde::{Deserialize, Serialize};

/// Bootstrap rounds per interval.
pub const RESAMPLES: usize = 10_000;

/// Confidence level of the intervals.
pub const CONFIDENCE: f64 = 0.95;

/// The base seed; each comparison mixes in a hash of its identity so results are reproducible
/// and comparisons independent.
pub const SEED: u64 = 0x7472_6965_6265_6e63; // "triebenc"

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for resampling.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (`n > 0`), by Lemire's multiply-shift (bias < n / 2^64).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// FNV-1a over `text`, for deriving per-comparison seeds.
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The arithmetic mean (`None` for an empty slice).
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// A ratio of means with its bootstrap confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    /// `mean(numerator) / mean(denominator)` on the full samples.
    pub ratio: f64,
    /// Lower bound of the interval.
    pub low: f64,
    /// Upper bound of the interval.
    pub high: f64,
}

/// The `q` quantile (0..=1) of sorted `xs`, linearly interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] * (1.0 - frac) + sorted[hi] * frac
}

fn resampled_mean(xs: &[f64], rng: &mut SplitMix64) -> f64 {
    let n = xs.len();
    let mut sum = 0.0;
    for _ in 0..n {
        sum += xs[rng.below(n)];
    }
    sum / n as f64
}

/// Bootstraps `mean(numerator) / mean(denominator)`.
///
/// Returns `None` when a sample set is empty, `resamples` is 0, or a mean is not positive
/// (criterion's per-iteration times are always positive).
pub fn bootstrap_ratio(
    numerator: &[f64],
    denominator: &[f64],
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> Option<RatioCi> {
    let num = mean(numerator)?;
    let den = mean(denominator)?;
    let usable = resamples > 0 && num > 0.0 && den > 0.0 && num.is_finite() && den.is_finite();
    if !usable {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| {
            let n = resampled_mean(numerator, &mut rng);
            let d = resampled_mean(denominator, &mut rng);
            n / d
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Some(RatioCi {
        ratio: num / den,
        low: quantile(&ratios, tail),
        high: quantile(&ratios, 1.0 - tail),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // First outputs of the reference splitmix64.c seeded with 1234567.
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let i = r.below(5);
            assert!(i < 5);
            seen[i] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn quantiles_interpolate() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 0.5), 3.0);
        assert_eq!(quantile(&xs, 0.625), 3.5);
        assert_eq!(quantile(&xs, 1.0), 5.0);
    }

    #[test]
    fn degenerate_inputs_give_none() {
        assert!(bootstrap_ratio(&[], &[1.0], 10, 0.95, 1).is_none());
        assert!(bootstrap_ratio(&[1.0], &[0.0], 10, 0.95, 1).is_none());
        assert!(bootstrap_ratio(&[1.0], &[1.0], 0, 0.95, 1).is_none());
    }
}
