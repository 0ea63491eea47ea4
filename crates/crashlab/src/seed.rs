//! Where a run's randomness comes from: the seed given, or one from the clock, and the
//! per-round seeds drawn from it.

use triebench_workloads::rng::XorShift64Star;

/// `seed`, or one from the clock for a run given none.
pub(crate) fn or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    })
}

/// The per-round seeds of a run.
pub(crate) fn round_seeds(seed: u64, rounds: u64) -> Vec<u64> {
    let mut rng = XorShift64Star::new(seed);
    (0..rounds).map(|_| rng.next_u64()).collect()
}
