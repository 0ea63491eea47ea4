//! The figure that holds across hosts: what a profile's commit costs above its own storage
//! floor ÷ what `btree`'s costs above its floor, on the same run, with a 95% interval.
//!
//! Two hosts running the same binary moved every ratio against `btree` with their hash speed
//! (suite ÷ `btree`, `sqlite-wal` on tmpfs: 7.12 on the project's VM, 5.28 on a 16-core Xeon
//! whose SHA-512 is 3.3x slower), while this ratio of above-floors hardly moved (2.89 and 2.74):
//! both sides pay the trie's hashing, and the storage's own writes are taken out of each.
//!
//! The interval comes from the two above-floors' own intervals (paired or Welch,
//! [`above_floor`]) by the delta method on the log scale: `ln r ± z·√((se_a/a)² + (se_b/b)²)`;
//! it exists only when both above-floors are positive with intervals clear of zero, since
//! otherwise the ratio is not a figure.

use crate::analysis::above_floor::{above_floor, AboveFloor};
use crate::model::bench_id::REFERENCE_PROFILE;
use crate::model::results::ResultSet;

/// 97.5th percentile of the standard normal.
const Z95: f64 = 1.959_963_985;

/// A profile's above-floor against `btree`'s on one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AboveRatio {
    /// The profile's above-floor.
    pub above: AboveFloor,
    /// `btree`'s above-floor on the same run.
    pub reference: AboveFloor,
    /// The ratio with its interval, when both above-floors are positive and clear of zero.
    pub ratio: Option<(f64, f64, f64)>,
}

/// `profile`'s above-floor ÷ `btree`'s on `run`, `None` when either was not measured.
pub fn above_vs_btree(results: &ResultSet, run: &str, profile: &str) -> Option<AboveRatio> {
    let above = above_floor(results, run, profile)?;
    let reference = above_floor(results, run, REFERENCE_PROFILE)?;
    Some(AboveRatio {
        above,
        reference,
        ratio: ratio_ci(&above, &reference),
    })
}

/// `a ÷ b` with its interval (see the module doc), `None` unless both are clear of zero.
fn ratio_ci(a: &AboveFloor, b: &AboveFloor) -> Option<(f64, f64, f64)> {
    let clear = |x: &AboveFloor| x.above.point > 0.0 && x.above.lower > 0.0;
    if !clear(a) || !clear(b) {
        return None;
    }
    let rel_se = |x: &AboveFloor| (x.above.upper - x.above.lower) / (2.0 * Z95) / x.above.point;
    let r = a.above.point / b.above.point;
    let half = Z95 * (rel_se(a).powi(2) + rel_se(b).powi(2)).sqrt();
    Some((r, r * (-half).exp(), r * half.exp()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::results::Estimate;

    fn af(point: f64, half: f64) -> AboveFloor {
        AboveFloor {
            floor_ns: 1.0,
            update_ns: 1.0 + point,
            above: Estimate {
                point,
                lower: point - half,
                upper: point + half,
                confidence_level: 0.95,
            },
            paired: false,
            samples: 10,
        }
    }

    #[test]
    fn the_ratio_carries_an_interval_around_it_and_none_when_a_side_is_not_clear_of_zero() {
        let (r, lo, hi) = ratio_ci(&af(60.0, 6.0), &af(20.0, 2.0)).unwrap();
        assert!((r - 3.0).abs() < 1e-12);
        assert!(lo < 3.0 && hi > 3.0 && lo > 2.5 && hi < 3.5, "{lo} {hi}");
        // Tighter sides, tighter ratio.
        let (_, lo2, hi2) = ratio_ci(&af(60.0, 0.6), &af(20.0, 0.2)).unwrap();
        assert!(hi2 - lo2 < (hi - lo) / 5.0);
        assert_eq!(ratio_ci(&af(-5.0, 1.0), &af(20.0, 2.0)), None);
        assert_eq!(ratio_ci(&af(60.0, 6.0), &af(2.0, 3.0)), None);
    }
}
