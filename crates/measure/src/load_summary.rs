//! A load run's summary as `load.json` holds it: the figures of a measured
//! [`RunResult`], and whether it held its latency bound.

use triebench_record::load::RunSummary;
use triebench_workloads::load::RunResult;

/// The summary of a run; `saturated` when it did not hold `p99_bound_us` at
/// `min_fraction` of its offered rate.
pub fn run_summary(run: &RunResult, p99_bound_us: u64, min_fraction: f64) -> RunSummary {
    let bound = std::time::Duration::from_micros(p99_bound_us);
    RunSummary {
        readers: run.config.readers,
        rate: run.config.rate,
        elapsed_s: run.elapsed.as_secs_f64(),
        commit: run.commit_stats(),
        read: run.read_stats(),
        missed: run.missed,
        saturated: !run.holds(bound, min_fraction),
        stopped: run.stopped,
    }
}
