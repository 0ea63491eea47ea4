//! `--phases FILE` of `triebench load`: the phase collector around each run's writer (the
//! calling thread), summed over the runs of the command, then printed and saved like
//! `root --phases`. The command allows it only with `--readers 0`.

use std::path::Path;

use triebench_kv::Profile;
use triebench_report::model::phases::{save_json, PhaseRow};
use triebench_report::read::phases::{measure, PhaseTotals};

use crate::commands::phases::describe;
use crate::error::CliError;

/// Phase time summed over several measured runs.
#[derive(Debug, Default)]
pub struct PhaseTally {
    totals: PhaseTotals,
    wall_ns: u64,
}

impl PhaseTally {
    /// Runs `f` with the collector listening on this thread and adds what it measured.
    pub fn measure<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (out, totals, wall_ns) = measure(f);
        for i in 0..totals.ns.len() {
            self.totals.ns[i] += totals.ns[i];
            self.totals.spans[i] += totals.spans[i];
        }
        self.wall_ns += wall_ns;
        out
    }

    /// Prints the breakdown on standard error and writes it to `path`, as `root --phases` does;
    /// `total_ns` is the runs' wall time, so `other` includes the writer's wait for each
    /// commit's scheduled start.
    pub fn finish(
        &self,
        profile: Profile,
        scenario: &str,
        commits: u64,
        path: &Path,
    ) -> Result<(), CliError> {
        let row = PhaseRow {
            profile: profile.name().to_string(),
            scenario: scenario.to_string(),
            commits,
            total_ns: self.wall_ns,
            phases: self.totals.ns_by_name(),
            spans: self.totals.spans_by_name(),
        };
        eprint!("{}", describe(&row));
        save_json(&row, path)?;
        Ok(())
    }
}
