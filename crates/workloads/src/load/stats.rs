//! Latency histograms per operation kind ([`hdrhistogram`]): one over the whole run and one
//! per second of the run (by completion time), so the run's summary and its time series come
//! from the same records. Each thread keeps its own [`Recorder`]; they are merged at the end.

use std::time::Duration;

use hdrhistogram::Histogram;

/// Longest latency tracked exactly: 10 minutes, in µs (longer ones are clamped to it).
const MAX_US: u64 = 600_000_000;

fn histogram(sigfig: u8) -> Histogram<u64> {
    // Constant bounds (1..=MAX_US, 2 or 3 significant figures) that hdrhistogram accepts; no
    // input reaches this.
    Histogram::new_with_bounds(1, MAX_US, sigfig).expect("constant histogram bounds are valid")
}

/// Latency in µs as recorded: at least 1 (the histogram's lowest value).
fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros())
        .unwrap_or(u64::MAX)
        .clamp(1, MAX_US)
}

pub use triebench_record::load::OpStats;

/// The latencies of one operation kind.
#[derive(Debug, Clone)]
pub struct Recorder {
    total: Histogram<u64>,
    per_second: Vec<Histogram<u64>>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Recorder {
            total: histogram(3),
            per_second: Vec::new(),
        }
    }

    /// Records an operation that completed at `done` (time since the run's start) after
    /// `latency`.
    pub fn record(&mut self, done: Duration, latency: Duration) {
        let v = micros(latency);
        self.total.saturating_record(v);
        let s = usize::try_from(done.as_secs()).unwrap_or(usize::MAX);
        if s >= self.per_second.len() {
            // Seconds of a run are few (a run lasts minutes at most): grow to cover `s`.
            let s = s.min(24 * 3600);
            self.per_second.resize_with(s + 1, || histogram(2));
        }
        if let Some(h) = self.per_second.get_mut(s) {
            h.saturating_record(v);
        }
    }

    /// Adds `other`'s records to these.
    pub fn merge(&mut self, other: &Recorder) {
        // Same bounds on both sides: `add` cannot fail on range.
        let _ = self.total.add(&other.total);
        if other.per_second.len() > self.per_second.len() {
            self.per_second
                .resize_with(other.per_second.len(), || histogram(2));
        }
        for (mine, theirs) in self.per_second.iter_mut().zip(&other.per_second) {
            let _ = mine.add(theirs);
        }
    }

    /// Operations recorded.
    pub fn count(&self) -> u64 {
        self.total.len()
    }

    /// The summary over a run that lasted `elapsed`.
    pub fn summary(&self, elapsed: Duration) -> OpStats {
        let n = self.total.len();
        if n == 0 {
            return OpStats::default();
        }
        let secs = elapsed.as_secs_f64();
        OpStats {
            count: n,
            per_sec: if secs > 0.0 { n as f64 / secs } else { 0.0 },
            p50_us: self.total.value_at_quantile(0.5),
            p99_us: self.total.value_at_quantile(0.99),
            p999_us: self.total.value_at_quantile(0.999),
            max_us: self.total.max(),
        }
    }

    /// Operations completed in second `s` of the run and their 99th percentile (µs; 0 when
    /// none completed).
    pub fn second(&self, s: usize) -> (u64, u64) {
        match self.per_second.get(s) {
            Some(h) if !h.is_empty() => (h.len(), h.value_at_quantile(0.99)),
            _ => (0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    #[test]
    fn summary_and_seconds_follow_the_records() {
        let mut r = Recorder::new();
        for i in 0..100 {
            r.record(ms(10 * i), ms(1 + i / 50));
        }
        let s = r.summary(Duration::from_secs(2));
        assert_eq!(s.count, 100);
        assert_eq!(s.per_sec, 50.0);
        assert!((1000..=1001).contains(&s.p50_us), "{s:?}");
        assert!((2000..=2002).contains(&s.max_us), "{s:?}");
        assert_eq!(r.second(0).0, 100);
        assert_eq!(r.second(1), (0, 0));
    }

    #[test]
    fn merging_adds_counts_per_second() {
        let mut a = Recorder::new();
        let mut b = Recorder::new();
        a.record(ms(500), ms(2));
        b.record(ms(1500), ms(40));
        b.record(ms(2500), ms(3));
        a.merge(&b);
        assert_eq!(a.count(), 3);
        assert_eq!(a.second(0).0, 1);
        assert_eq!(a.second(1).0, 1);
        assert!(a.second(1).1 >= 39_000);
        assert_eq!(a.second(2).0, 1);
    }

    #[test]
    fn a_sub_microsecond_operation_counts_as_one() {
        let mut r = Recorder::new();
        r.record(Duration::ZERO, Duration::from_nanos(10));
        assert_eq!(r.summary(Duration::from_secs(1)).max_us, 1);
    }
}
