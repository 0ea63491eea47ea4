//! Where a run's randomness comes from: the seed given, or one from the clock.

/// `seed`, or one from the clock for a run given none.
pub(crate) fn or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    })
}
