//! Latency histograms shared by the runs that time single operations (`grow_run`,
//! `engines_run`): one histogram shape, the elapsed time of one operation, and the percentiles
//! a run record keeps.

use std::time::Instant;

use hdrhistogram::Histogram;
use triebench_record::grow::Latency;

/// An empty histogram of nanoseconds, 1 ns to 10 minutes, 3 significant figures.
pub(crate) fn histogram() -> Histogram<u64> {
    // Constant bounds hdrhistogram accepts.
    Histogram::new_with_bounds(1, 600_000_000_000, 3).expect("constant histogram bounds are valid")
}

/// The count, p50, p99 and maximum of `h`, in µs, as run records hold them.
pub(crate) fn latency(h: &Histogram<u64>) -> Latency {
    let us = |ns: u64| ns as f64 / 1000.0;
    Latency {
        count: h.len(),
        p50_us: us(h.value_at_quantile(0.5)),
        p99_us: us(h.value_at_quantile(0.99)),
        max_us: us(h.max()),
    }
}

/// Nanoseconds since `start`, at least 1 (the histogram's lowest value).
pub(crate) fn elapsed_ns(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos())
        .unwrap_or(u64::MAX)
        .max(1)
}
