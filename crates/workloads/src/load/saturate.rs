//! The saturation search: the highest offered rate that still holds (achieved >= 95% of it and
//! commit p99 within the bound; `verdict` decides, running a rate again while a failing p99
//! rests on too few commits). Grow geometrically from a start rate until a step fails (or
//! shrink until one holds), then bisect between the last rate that held and the first that
//! failed. Every phase has a step limit, so the search's length is bounded by
//! `(max_grow_steps + bisect_steps) × runs per rate × step duration`, and the caller's budget
//! stops it sooner.

/// How the search proceeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchPlan {
    /// First rate tried, commits/s.
    pub start_rate: f64,
    /// Factor between rates of the grow (or shrink) phase, above 1.
    pub growth: f64,
    /// Steps of the grow/shrink phase at most.
    pub max_grow_steps: usize,
    /// Steps of the bisection at most.
    pub bisect_steps: usize,
    /// Bisection stops when the failing rate is within this factor of the holding one.
    pub resolution: f64,
    /// Lowest rate tried.
    pub min_rate: f64,
}

impl Default for SearchPlan {
    /// From 50 commits/s, doubling, at most 9 grow steps (50 .. 12,800/s, or down to 0.2/s)
    /// and 4 bisect steps (down to ~10% resolution): 13 steps.
    fn default() -> Self {
        SearchPlan {
            start_rate: 50.0,
            growth: 2.0,
            max_grow_steps: 9,
            bisect_steps: 4,
            resolution: 1.1,
            min_rate: 0.2,
        }
    }
}

/// One rate tried and whether it held.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchStep {
    /// Offered rate.
    pub rate: f64,
    /// Whether it held.
    pub holds: bool,
}

/// A rate rounded to three significant figures (readable step rates).
pub fn round_rate(r: f64) -> f64 {
    if !(r.is_finite() && r > 0.0) {
        return r;
    }
    let scale = 10f64.powi(2 - r.log10().floor() as i32);
    (r * scale).round() / scale
}

/// Runs the search: `try_rate(r)` runs one step and says whether it held, or `None` to end
/// the search early (stopped, out of time). Returns every step in order; the answer is the
/// highest rate among the steps that held.
pub fn search<E>(
    plan: &SearchPlan,
    mut try_rate: impl FnMut(f64) -> Result<Option<bool>, E>,
) -> Result<Vec<SearchStep>, E> {
    let mut steps = Vec::new();
    let (mut good, mut bad): (Option<f64>, Option<f64>) = (None, None);
    let mut rate = plan.start_rate;
    for _ in 0..plan.max_grow_steps {
        let Some(holds) = try_rate(rate)? else {
            return Ok(steps);
        };
        steps.push(SearchStep { rate, holds });
        if holds {
            good = Some(rate);
            if bad.is_some() {
                break;
            }
            rate = round_rate(rate * plan.growth);
        } else {
            bad = Some(rate);
            if good.is_some() {
                break;
            }
            rate = round_rate(rate / plan.growth);
            if rate < plan.min_rate {
                break;
            }
        }
    }
    for _ in 0..plan.bisect_steps {
        let (Some(g), Some(b)) = (good, bad) else {
            break;
        };
        if b / g <= plan.resolution {
            break;
        }
        let mid = round_rate((g * b).sqrt());
        if mid <= g || mid >= b {
            break;
        }
        let Some(holds) = try_rate(mid)? else {
            break;
        };
        steps.push(SearchStep { rate: mid, holds });
        if holds {
            good = Some(mid);
        } else {
            bad = Some(mid);
        }
    }
    Ok(steps)
}

/// The highest rate that held, if any did.
pub fn sustained(steps: &[SearchStep]) -> Option<f64> {
    steps
        .iter()
        .filter(|s| s.holds)
        .map(|s| s.rate)
        .fold(None, |m, r| Some(m.map_or(r, |m: f64| m.max(r))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(capacity: f64) -> Vec<SearchStep> {
        search::<()>(&SearchPlan::default(), |r| Ok(Some(r <= capacity))).unwrap()
    }

    #[test]
    fn grows_then_bisects_to_within_the_resolution() {
        let steps = run(700.0);
        let rates: Vec<f64> = steps.iter().map(|s| s.rate).collect();
        assert_eq!(&rates[..6], &[50.0, 100.0, 200.0, 400.0, 800.0, 566.0]);
        let best = sustained(&steps).unwrap();
        assert!(best <= 700.0 && best > 700.0 / 1.1, "{rates:?}");
        assert!(steps.len() <= 13);
    }

    #[test]
    fn shrinks_when_the_start_rate_fails() {
        let steps = run(12.0);
        assert_eq!(steps[0].rate, 50.0);
        assert!(!steps[0].holds);
        let best = sustained(&steps).unwrap();
        assert!(best <= 12.0 && best > 12.0 / 1.1, "{steps:?}");
    }

    #[test]
    fn stops_when_asked_and_when_nothing_holds() {
        let mut n = 0;
        let steps = search::<()>(&SearchPlan::default(), |_| {
            n += 1;
            Ok(if n > 2 { None } else { Some(true) })
        })
        .unwrap();
        assert_eq!(steps.len(), 2);
        let none = run(0.0);
        assert_eq!(sustained(&none), None);
        assert!(none.len() <= SearchPlan::default().max_grow_steps);
    }

    #[test]
    fn rates_round_to_three_figures() {
        assert_eq!(round_rate(565.685), 566.0);
        assert_eq!(round_rate(0.123456), 0.123);
    }
}
