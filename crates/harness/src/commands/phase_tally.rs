//! `--phases FILE` of `triebench load`: the phase collector around each run's writer (the
//! calling thread), summed over the runs of the command, then printed and saved like
//! `root --phases`. The total is the writer's time in its commits, not the runs' wall time, so
//! `other` is what the commits spent outside every phase and not the open-loop writer's waits
//! for each commit's turn. The command allows it only with `--readers 0`.

use std::path::Path;
use std::time::Duration;

use triebench_kv::Profile;
use triebench_measure::phases::{measure, PhaseTotals};
use triebench_report::model::phases::{save_json, PhaseRow};

use crate::commands::phases::describe;
use crate::error::CliError;

/// Phase time summed over several measured runs.
#[derive(Debug, Default)]
pub struct PhaseTally {
    totals: PhaseTotals,
}

impl PhaseTally {
    /// Runs `f` with the collector listening on this thread and adds what it measured.
    pub fn measure<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (out, totals, _wall_ns) = measure(f);
        for i in 0..totals.ns.len() {
            self.totals.ns[i] += totals.ns[i];
            self.totals.spans[i] += totals.spans[i];
        }
        out
    }

    /// Prints the breakdown on standard error and writes it to `path`, as `root --phases` does,
    /// with `busy` (the writer's time in its commits over the runs) as `total_ns`.
    pub fn finish(
        &self,
        profile: Profile,
        scenario: &str,
        commits: u64,
        busy: Duration,
        path: &Path,
    ) -> Result<(), CliError> {
        let row = PhaseRow {
            profile: profile.name().to_string(),
            scenario: scenario.to_string(),
            commits,
            total_ns: u64::try_from(busy.as_nanos()).unwrap_or(u64::MAX),
            phases: self.totals.ns_by_name(),
            spans: self.totals.spans_by_name(),
        };
        eprint!("{}", describe(&row));
        save_json(&row, path)?;
        Ok(())
    }
}
