//! Taking a filesystem's headline (`triebench headline`): every scenario and the suite on every
//! profile, measured as criterion's scenario groups are (each run on a fresh store in a fresh
//! directory under the directory under test; opening and removing it not timed), but with the
//! samples taken within runs ([`crate::headline_samples`]), so a profile whose suite takes ten
//! seconds is measured in one run of it instead of the eleven criterion needs.
//!
//! The caller first warms what the trie keeps per thread
//! ([`warm_trie`](crate::trie_warm_up::warm_trie): untimed runs of `update` on `btree`),
//! as for the phase breakdown. Per profile: one untimed run of each scenario but `update` warms
//! the store's server, connections and caches; one run of every scenario sizes the rest; then
//! as many rounds as the time budget allows (at least one, at most `max_runs` runs of
//! `update`), until every scenario has the same number of samples and the suite's sample *j* is
//! the sum of the scenarios'. Before the rounds (so the budget counts it), the profile's storage floor
//! (`floor/commit/<profile>`): [`FLOOR_COMMITS`] of `update`'s commits, their recorded writes
//! replayed straight on a preloaded fresh store ([`triebench_workloads::floor`]), one sample each.

use std::path::Path;
use std::time::{Duration, Instant};

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_workloads::floor::{FloorCommits, FLOOR_COMMITS};
use triebench_workloads::{Lap, Scenario, SCENARIOS};

use triebench_record::vocabulary::{FLOOR_COMMIT_GROUP, SUITE};
use triebench_record::{Benchmark, Sample};

use crate::error::MeasureError;
use crate::headline_samples::{run_samples, summed, GROUPS};
use crate::trie_warm_up::WarmTrie;

/// How long a profile's headline may take, and how many runs of a scenario it may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Wall-time budget per profile, set-up included; the first round is taken whatever it costs.
    pub budget: Duration,
    /// Most rounds: [`GROUPS`] samples per round for `update`, whose runs dominate.
    pub max_rounds: usize,
}

/// One profile's headline: the benchmarks its run record holds and what taking them cost.
#[derive(Debug, Clone)]
pub struct ProfileHeadline {
    /// The profile measured.
    pub profile: Profile,
    /// `scenario/<name>/<profile>` for each scenario, then `scenario/suite/<profile>` and
    /// `floor/commit/<profile>`.
    pub benchmarks: Vec<Benchmark>,
    /// Runs made of each scenario, in [`SCENARIOS`] order (warm-up included).
    pub runs: Vec<usize>,
    /// Wall time of the whole profile.
    pub wall: Duration,
}

impl ProfileHeadline {
    /// The suite's benchmark.
    pub fn suite(&self) -> Option<&Benchmark> {
        self.benchmarks.iter().find(|b| b.group.ends_with(SUITE))
    }

    /// Runs made of `scenario`, warm-up included.
    pub fn runs_of(&self, scenario: Scenario) -> usize {
        SCENARIOS
            .iter()
            .position(|&s| s == scenario)
            .and_then(|i| self.runs.get(i).copied())
            .unwrap_or(0)
    }
}

/// Runs one scenario on an opened store: its wall time and laps.
struct Timed {
    scenario: Scenario,
    profile: Profile,
}

impl StoreVisitor for Timed {
    type Output = Result<(Duration, Vec<Lap>), MeasureError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let start = Instant::now();
        let outcome = self.scenario.run(&store);
        let wall = start.elapsed();
        let outcome =
            outcome.map_err(|e| MeasureError::scenario(self.scenario, self.profile, e))?;
        Ok((wall, outcome.laps))
    }
}

/// Times [`FLOOR_COMMITS`] floor commits on a preloaded store (the recording of `update`'s
/// writes, the preload and the selection of each commit untimed).
struct Floor;

impl StoreVisitor for Floor {
    type Output = Result<Vec<f64>, MeasureError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let mut floor = FloorCommits::new(&store)?;
        floor.preload(&store)?;
        (0..FLOOR_COMMITS)
            .map(|_| {
                floor.prepare();
                let start = Instant::now();
                floor.commit(&store)?;
                Ok(start.elapsed().as_nanos() as f64)
            })
            .collect()
    }
}

/// One run of `scenario` on a fresh store: its samples and its cost with set-up.
fn one_run(
    stores: &FreshStores,
    profile: Profile,
    scenario: Scenario,
) -> Result<(Vec<f64>, Duration), MeasureError> {
    let start = Instant::now();
    let (wall, laps) = stores.try_run(triebench_merkle::TABLES, Timed { scenario, profile })??;
    Ok((run_samples(wall, &laps), start.elapsed()))
}

/// The most rounds (samples = rounds × [`GROUPS`]) whose remaining runs fit `plan`, given each
/// scenario's samples per run and cost per run, after `spent` so far and one run each.
fn rounds_within(plan: Plan, per_run: &[(usize, Duration)], spent: Duration) -> usize {
    let cost = |rounds: usize| -> Duration {
        let target = rounds * GROUPS;
        per_run
            .iter()
            .map(|&(samples, cost)| cost * (target.div_ceil(samples.max(1)) as u32 - 1))
            .sum()
    };
    (1..=plan.max_rounds.max(1))
        .rev()
        .find(|&r| r == 1 || spent + cost(r) <= plan.budget)
        .unwrap_or(1)
}

/// Takes the headline of each profile in turn in fresh directories under `dir`, on the thread
/// the trie was warmed on; `progress` hears each profile as it is done.
pub fn collect(
    _warm: &WarmTrie,
    dir: &Path,
    profiles: &[Profile],
    plan: Plan,
    mut progress: impl FnMut(&ProfileHeadline),
) -> Result<Vec<ProfileHeadline>, MeasureError> {
    let mut out = Vec::new();
    for &profile in profiles {
        let start = Instant::now();
        let stores = FreshStores::new(profile, dir)?;
        let mut runs = vec![0usize; SCENARIOS.len()];
        for (i, &scenario) in SCENARIOS.iter().enumerate() {
            if scenario != Scenario::Update {
                one_run(&stores, profile, scenario)?;
                runs[i] += 1;
            }
        }
        let mut samples: Vec<Vec<f64>> = Vec::new();
        let mut per_run = Vec::new();
        for (i, &scenario) in SCENARIOS.iter().enumerate() {
            let (s, cost) = one_run(&stores, profile, scenario)?;
            runs[i] += 1;
            per_run.push((s.len(), cost));
            samples.push(s);
        }
        // Before the rounds, so the budget counts it.
        let floor = stores.try_run(triebench_merkle::TABLES, Floor)??;
        let target = rounds_within(plan, &per_run, start.elapsed()) * GROUPS;
        for (i, &scenario) in SCENARIOS.iter().enumerate() {
            while samples[i].len() < target {
                let (s, _) = one_run(&stores, profile, scenario)?;
                runs[i] += 1;
                samples[i].extend(s);
            }
            samples[i].truncate(target);
        }
        let name = profile.name();
        let one_each = |s: &[f64]| s.iter().map(|&ns| Sample::one(ns)).collect::<Vec<_>>();
        let mut benchmarks: Vec<Benchmark> = SCENARIOS
            .iter()
            .zip(&samples)
            .map(|(scenario, s)| {
                let group = format!("scenario/{}", scenario.name());
                Benchmark::ns(&group, name, Some(name), one_each(s))
            })
            .collect();
        let all: Vec<&[f64]> = samples.iter().map(Vec::as_slice).collect();
        let suite = format!("scenario/{SUITE}");
        benchmarks.push(Benchmark::ns(
            &suite,
            name,
            Some(name),
            one_each(&summed(&all)),
        ));
        benchmarks.push(Benchmark::ns(
            FLOOR_COMMIT_GROUP,
            name,
            Some(name),
            one_each(&floor),
        ));
        let headline = ProfileHeadline {
            profile,
            benchmarks,
            runs,
            wall: start.elapsed(),
        };
        progress(&headline);
        out.push(headline);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn rounds_fit_the_budget_and_are_at_least_one() {
        // update: 10 samples per run at 100 ms; nine small scenarios: 1 sample per run at 2 ms.
        let mut per_run = vec![(10, ms(100))];
        per_run.extend(std::iter::repeat_n((1, ms(2)), 9));
        let plan = |budget: u64| Plan {
            budget: ms(budget),
            max_rounds: 3,
        };
        // One round: 9 more runs of each small scenario (162 ms); two: 1 update + 19 each.
        assert_eq!(rounds_within(plan(100), &per_run, ms(0)), 1);
        assert_eq!(rounds_within(plan(200), &per_run, ms(0)), 1);
        assert_eq!(rounds_within(plan(450), &per_run, ms(0)), 2);
        assert_eq!(rounds_within(plan(10_000), &per_run, ms(0)), 3);
        assert_eq!(rounds_within(plan(450), &per_run, ms(400)), 1);
    }
}
