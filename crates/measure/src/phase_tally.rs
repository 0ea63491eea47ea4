//! Phase time summed over several measured runs: what `triebench load --phases` collects around
//! each run's writer (the calling thread), as one [`PhaseRow`] whose total is the writer's time
//! in its commits, not the runs' wall time (so `other` is what the commits spent outside every
//! phase, not the open-loop writer's waits for each commit's turn).

use std::time::Duration;

use triebench_kv::Profile;
use triebench_record::phases::PhaseRow;

use crate::phases::{measure, PhaseTotals};

/// Phase time summed over several measured runs.
#[derive(Debug, Default)]
pub struct PhaseTally {
    totals: PhaseTotals,
}

impl PhaseTally {
    /// Runs `f` with the collector listening on this thread and adds what it measured.
    pub fn measure<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (out, totals, _wall_ns) = measure(f);
        self.totals.add(&totals);
        out
    }

    /// The tally as one row of `profile` × `scenario`, with `busy` (the writer's time in its
    /// commits over the runs) as its total.
    pub fn row(&self, profile: Profile, scenario: &str, commits: u64, busy: Duration) -> PhaseRow {
        PhaseRow {
            profile: profile.name().to_string(),
            scenario: scenario.to_string(),
            commits,
            total_ns: u64::try_from(busy.as_nanos()).unwrap_or(u64::MAX),
            phases: self.totals.ns_by_name(),
            spans: self.totals.spans_by_name(),
        }
    }
}
