//! Two plotters axes the charts need: a category axis (labels on integer centres) and a log
//! axis whose labels are 1-2-5 steps (or whole decades when those would crowd), so labels never
//! run into each other the way plotters' default log key points can on narrow ranges.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};

/// The category axis: category `i` (counted from the bottom) is centred on `i`, spanning
/// `i - 0.5 .. i + 0.5`; key points (labels) sit on the centres.
#[derive(Debug, Clone, Copy)]
pub struct CategoryAxis {
    /// Number of categories.
    pub n: usize,
}

impl Ranged for CategoryAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let frac = (value + 0.5) / self.n.max(1) as f64;
        limit.0 + (frac * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        (0..self.n).map(|i| i as f64).collect()
    }

    fn range(&self) -> Range<f64> {
        -0.5..self.n as f64 - 0.5
    }
}

impl ValueFormatter<f64> for CategoryAxis {
    fn format(_value: &f64) -> String {
        String::new()
    }
}

/// More minor grid lines than this (about three decades' worth) only add clutter.
const MAX_MINOR_LINES: usize = 30;

/// A base-10 logarithmic axis over `lo..hi` (both > 0).
#[derive(Debug, Clone, Copy)]
pub struct LogAxis {
    /// Lower end (> 0).
    pub lo: f64,
    /// Upper end (> lo).
    pub hi: f64,
}

impl LogAxis {
    /// Every `m × 10^k` (m in `mantissas`) inside the range, ascending.
    fn steps(&self, mantissas: &[f64]) -> Vec<f64> {
        let first = self.lo.log10().floor() as i32;
        let last = self.hi.log10().ceil() as i32;
        let mut out = Vec::new();
        for k in first..=last {
            for m in mantissas {
                let v = m * 10f64.powi(k);
                if v >= self.lo && v <= self.hi {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The label positions: 1-2-5 steps when at most `max` fit, else decades (thinned to `max`).
    pub fn labels(&self, max: usize) -> Vec<f64> {
        let max = max.max(2);
        let fine = self.steps(&[1.0, 2.0, 5.0]);
        if fine.len() <= max && fine.len() >= 2 {
            return fine;
        }
        let decades = self.steps(&[1.0]);
        if decades.len() <= max {
            return decades;
        }
        let stride = decades.len().div_ceil(max);
        decades.into_iter().step_by(stride).collect()
    }
}

impl Ranged for LogAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (self.lo.ln(), self.hi.ln());
        let v = value.max(self.lo * 1e-3).ln();
        let frac = (v - a) / (b - a);
        limit.0 + (frac * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            let minor = self.steps(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
            if minor.len() <= hint.max_num_points().min(MAX_MINOR_LINES) {
                return minor;
            }
        }
        self.labels(hint.bold_points())
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for LogAxis {
    fn format(value: &f64) -> String {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_labels_do_not_crowd() {
        let narrow = LogAxis { lo: 0.3, hi: 17.0 };
        assert_eq!(narrow.labels(10), [0.5, 1.0, 2.0, 5.0, 10.0]);
        let wide = LogAxis { lo: 50.0, hi: 2e9 };
        assert!(wide.labels(10).len() <= 10);
        assert!(wide
            .labels(10)
            .iter()
            .all(|v| v.log10().fract().abs() < 1e-9));
        let tiny = LogAxis { lo: 1.1, hi: 1.4 };
        assert!(tiny.labels(10).len() <= 2);
    }

    #[test]
    fn maps_are_monotonic_and_span_the_limits() {
        let a = LogAxis { lo: 1.0, hi: 100.0 };
        assert_eq!(a.map(&1.0, (0, 200)), 0);
        assert_eq!(a.map(&10.0, (0, 200)), 100);
        assert_eq!(a.map(&100.0, (0, 200)), 200);
        let c = CategoryAxis { n: 4 };
        assert_eq!(c.map(&-0.5, (400, 0)), 400);
        assert_eq!(c.map(&3.5, (400, 0)), 0);
    }
}
