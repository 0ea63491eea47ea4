//! Taking a filesystem's phase breakdown (`triebench phases`): every scenario once per profile,
//! each on a fresh store in a fresh directory under the directory under test (as one criterion
//! iteration does), with the [phase collector](crate::phases) listening; one row per
//! scenario and a `suite` row (their sum) per profile. The caller first warms what the trie
//! keeps per thread ([`warm_trie`](crate::trie_warm_up::warm_trie): untimed runs of
//! `update` on `btree`) outside anything it samples: `phases --flamegraph` profiles only
//! [`collect`].

use std::path::Path;

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_workloads::{Scenario, SCENARIOS};

pub use triebench_record::layout::phases_path as path;
use triebench_record::phases::{PhaseRow, PhaseRunFile, SCHEMA};
use triebench_record::time as naming;
use triebench_record::vocabulary::SUITE;

use crate::error::MeasureError;
use crate::phases::{measure, PhaseTotals};
use crate::trie_warm_up::WarmTrie;

/// Runs one scenario on an opened store with the collector listening.
struct Timed {
    scenario: Scenario,
    profile: Profile,
}

impl StoreVisitor for Timed {
    type Output = Result<(u64, PhaseTotals, u64), MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let (outcome, totals, wall) = measure(|| self.scenario.run(&store));
        let outcome =
            outcome.map_err(|e| MeasureError::scenario(self.scenario, self.profile, e))?;
        Ok((outcome.commits as u64, totals, wall))
    }
}

fn row(
    profile: Profile,
    scenario: &str,
    commits: u64,
    totals: &PhaseTotals,
    wall: u64,
) -> PhaseRow {
    PhaseRow {
        profile: profile.name().to_string(),
        scenario: scenario.to_string(),
        commits,
        total_ns: wall,
        phases: totals.ns_by_name(),
        spans: totals.spans_by_name(),
    }
}

/// Times every scenario once per profile in fresh directories under `dir`, on the thread the
/// trie was warmed on; `progress` hears each row as it is taken. What idle CPUs did is the
/// caller's to record (`None` here).
pub fn collect(
    _warm: &WarmTrie,
    run: &str,
    dir: &Path,
    profiles: &[Profile],
    mut progress: impl FnMut(&PhaseRow),
) -> Result<PhaseRunFile, MeasureError> {
    let mut rows = Vec::new();
    for &profile in profiles {
        let stores = FreshStores::new(profile, dir)?;
        let mut suite = PhaseTotals::default();
        let (mut suite_commits, mut suite_wall) = (0, 0);
        for scenario in SCENARIOS {
            let timed = Timed { scenario, profile };
            let (commits, totals, wall) = stores.try_run(triebench_merkle::TABLES, timed)??;
            let r = row(profile, scenario.name(), commits, &totals, wall);
            progress(&r);
            rows.push(r);
            for i in 0..suite.ns.len() {
                suite.ns[i] += totals.ns[i];
                suite.spans[i] += totals.spans[i];
            }
            suite_commits += commits;
            suite_wall += wall;
        }
        let r = row(profile, SUITE, suite_commits, &suite, suite_wall);
        progress(&r);
        rows.push(r);
    }
    Ok(PhaseRunFile {
        schema: SCHEMA.to_string(),
        run: run.to_string(),
        dir: dir.display().to_string(),
        generated_at: naming::now(),
        rows,
        cpu_idle: None,
    })
}
