//! The open-loop schedule: commit `i` is *intended* to start at `start + i / rate`, whatever
//! happened to the commits before it. Latency counts from that intended start, so a backend
//! that stalls is charged for the commits queued behind the stall (no coordinated omission).

use std::time::Duration;

use crate::load::error::LoadError;

/// Intended start times at a fixed rate. A pure value: no clock, no state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    rate: f64,
    start: Duration,
}

impl Schedule {
    /// Commits at `rate` per second from `start`; the rate must be finite and above zero.
    pub fn new(rate: f64, start: Duration) -> Result<Self, LoadError> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(LoadError::Config(format!(
                "the commit rate must be a number above 0 per second, got {rate}"
            )));
        }
        Ok(Schedule { rate, start })
    }

    /// The offered rate, commits per second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// When commit `i` (from 0) is intended to start.
    pub fn intended(&self, i: u64) -> Duration {
        // A rate so low that commit `i` is due past what a Duration holds is due never.
        let after = Duration::try_from_secs_f64(i as f64 / self.rate).unwrap_or(Duration::MAX);
        self.start.saturating_add(after)
    }

    /// How many commits are intended to start before `t` (those with `intended(i) < t`).
    pub fn due_before(&self, t: Duration) -> u64 {
        if t <= self.start {
            return 0;
        }
        let x = (t - self.start).as_secs_f64() * self.rate;
        // ceil(x) commits have i < x; guard the float edge so intended(n-1) < t holds.
        let mut n = x.ceil() as u64;
        while n > 0 && self.intended(n - 1) >= t {
            n -= 1;
        }
        while self.intended(n) < t {
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intended_starts_are_evenly_spaced_from_the_start() {
        let s = Schedule::new(4.0, Duration::from_secs(1)).unwrap();
        assert_eq!(s.intended(0), Duration::from_secs(1));
        assert_eq!(s.intended(3), Duration::from_millis(1750));
        assert_eq!(s.due_before(Duration::from_secs(1)), 0);
        assert_eq!(s.due_before(Duration::from_millis(1001)), 1);
        assert_eq!(s.due_before(Duration::from_secs(2)), 4);
        assert_eq!(s.due_before(Duration::from_millis(2001)), 5);
    }

    #[test]
    fn a_rate_too_low_to_schedule_a_second_commit_schedules_only_the_first() {
        let s = Schedule::new(1e-300, Duration::from_secs(1)).unwrap();
        assert_eq!(s.intended(0), Duration::from_secs(1));
        assert_eq!(s.intended(1), Duration::MAX);
        assert_eq!(s.due_before(Duration::from_secs(3600)), 1);
    }

    #[test]
    fn a_rate_must_be_positive_and_finite() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Schedule::new(bad, Duration::ZERO).is_err(), "{bad}");
        }
    }
}
