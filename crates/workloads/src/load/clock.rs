//! The load generator's only source of time, behind [`Clock`] so that the open-loop schedule
//! and the histogram bookkeeping are tested against a [`FakeClock`] instead of the wall clock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Time since the start of a run, and waiting for a point in it.
pub trait Clock: Sync {
    /// Time elapsed since the clock's origin.
    fn now(&self) -> Duration;
    /// Blocks until [`now`](Self::now) is at least `t` (returns at once when it already is).
    fn sleep_until(&self, t: Duration);
}

/// The monotonic system clock, with its origin where it was made.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock whose origin is now.
    pub fn start() -> Self {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep_until(&self, t: Duration) {
        let now = self.now();
        if t > now {
            std::thread::sleep(t - now);
        }
    }
}

/// A clock that moves only when told: [`advance`](Self::advance) adds time, and
/// [`sleep_until`](Clock::sleep_until) jumps straight to the time waited for (a single-threaded
/// simulation of waiting). Operations under test "take" time by advancing it.
#[derive(Debug, Default)]
pub struct FakeClock {
    nanos: AtomicU64,
}

impl FakeClock {
    /// A fake clock at zero.
    pub fn new() -> Self {
        FakeClock::default()
    }

    /// Moves the clock forward by `d`.
    pub fn advance(&self, d: Duration) {
        self.nanos.fetch_add(nanos(d), Ordering::SeqCst);
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }

    fn sleep_until(&self, t: Duration) {
        self.nanos.fetch_max(nanos(t), Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_moves_only_forward_and_only_when_told() {
        let c = FakeClock::new();
        assert_eq!(c.now(), Duration::ZERO);
        c.advance(Duration::from_millis(5));
        c.sleep_until(Duration::from_millis(3));
        assert_eq!(c.now(), Duration::from_millis(5));
        c.sleep_until(Duration::from_millis(12));
        assert_eq!(c.now(), Duration::from_millis(12));
    }
}
