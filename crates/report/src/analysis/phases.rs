//! Where a commit's time goes, as shares: each profile's `suite` row of a filesystem's phase
//! run split into its phases plus the time outside every phase, and what one phase span costs
//! (the `phases/span/...` benchmarks) so a reader can judge how much the measuring itself took.

use triebench_record::vocabulary::PHASES;

use crate::model::bench_id::BenchKey;
pub use crate::model::bench_id::{SPAN_COLLECTED, SPAN_GROUP, SPAN_IDLE};
use crate::model::phases::{PhaseRow, PhaseRunFile};
use crate::model::results::{Estimate, ResultSet};

/// One profile's breakdown on one filesystem.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakdown {
    /// Backend profile.
    pub profile: String,
    /// Commits the run made.
    pub commits: u64,
    /// The run's measured wall time, ns.
    pub total_ns: u64,
    /// Time per phase in [`PHASES`] order, ns.
    pub phase_ns: Vec<u64>,
    /// Time outside every phase (workload code, opening the trie), ns.
    pub other_ns: u64,
    /// Spans closed in all, for the cost of measuring.
    pub spans: u64,
}

impl Breakdown {
    /// The share of the total of `ns` (0 when the total is 0).
    pub fn share(&self, ns: u64) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            ns as f64 / self.total_ns as f64
        }
    }
}

fn breakdown(row: &PhaseRow) -> Breakdown {
    Breakdown {
        profile: row.profile.clone(),
        commits: row.commits,
        total_ns: row.total_ns,
        phase_ns: PHASES.iter().map(|p| row.ns(p)).collect(),
        other_ns: row.unaccounted_ns(),
        spans: row.span_count(),
    }
}

/// The `suite` breakdown of every profile in a filesystem's phase run, in file order.
pub fn suite_breakdowns(file: &PhaseRunFile) -> Vec<Breakdown> {
    file.suite_rows().map(breakdown).collect()
}

/// What one phase span costs, from the first run that measured it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanCost {
    /// Nothing listening (the benches, and the CLI without `--phases`), ns per span.
    pub idle: Estimate,
    /// The phase collector listening, ns per span.
    pub collected: Estimate,
    /// The run (filesystem) it was measured in.
    pub run: String,
}

/// The span cost measured by the `phases` bench, if any run has both figures.
pub fn span_cost(results: &ResultSet) -> Option<SpanCost> {
    let idle = BenchKey::new(SPAN_GROUP, Some(SPAN_IDLE), None);
    let collected = BenchKey::new(SPAN_GROUP, Some(SPAN_COLLECTED), None);
    results.runs.iter().find_map(|run| {
        Some(SpanCost {
            idle: run.benches.get(&idle)?.mean,
            collected: run.benches.get(&collected)?.mean,
            run: run.name.clone(),
        })
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::results::{Measurement, RunResults};

    #[test]
    fn shares_and_the_rest_add_up_to_the_total() {
        let row = PhaseRow {
            profile: "lmdb".into(),
            scenario: "suite".into(),
            commits: 10,
            total_ns: 1_000,
            phases: BTreeMap::from([("hash".into(), 300), ("commit".into(), 500)]),
            spans: BTreeMap::from([("hash".into(), 4), ("commit".into(), 10)]),
        };
        let b = breakdown(&row);
        assert_eq!(b.other_ns, 200);
        assert_eq!(b.spans, 14);
        let at = |name: &str| PHASES.iter().position(|p| *p == name).unwrap();
        assert_eq!(b.phase_ns[at("hash")], 300);
        assert_eq!(b.phase_ns[at("commit")], 500);
        let shares: f64 =
            b.phase_ns.iter().map(|&ns| b.share(ns)).sum::<f64>() + b.share(b.other_ns);
        assert!((shares - 1.0).abs() < 1e-12, "{shares}");
    }

    fn measured(ns: f64) -> Measurement {
        let e = Estimate {
            point: ns,
            lower: ns,
            upper: ns,
            confidence_level: 0.95,
        };
        Measurement {
            mean: e,
            median: e,
            throughput: Vec::new(),
            per_iter_ns: vec![ns],
        }
    }

    fn run(name: &str, benches: &[(&str, f64)]) -> RunResults {
        RunResults {
            name: name.into(),
            present: true,
            fs: None,
            cpu_idle: None,
            host: None,
            host_load: None,
            benches: benches
                .iter()
                .map(|(f, ns)| (BenchKey::new(SPAN_GROUP, Some(f), None), measured(*ns)))
                .collect(),
        }
    }

    #[test]
    fn span_cost_comes_from_the_first_run_with_both_figures() {
        let results = ResultSet {
            runs: vec![
                run("tmpfs", &[(SPAN_IDLE, 4.0)]),
                run("disk", &[(SPAN_IDLE, 5.0), (SPAN_COLLECTED, 230.0)]),
            ],
            available: Vec::new(),
        };
        let cost = span_cost(&results).expect("disk has both");
        assert_eq!(cost.run, "disk");
        assert_eq!((cost.idle.point, cost.collected.point), (5.0, 230.0));
        let none = ResultSet {
            runs: vec![run("tmpfs", &[(SPAN_COLLECTED, 230.0)])],
            available: Vec::new(),
        };
        assert_eq!(span_cost(&none), None);
    }
}
