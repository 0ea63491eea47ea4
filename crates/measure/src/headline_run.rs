//! Taking a filesystem's headline (`triebench headline`): every scenario and the suite on every
//! profile, measured as criterion's scenario groups are (each run on a fresh store in a fresh
//! directory under the directory under test), but with the samples taken within runs
//! ([`crate::headline_samples`]), so a profile whose suite takes ten seconds is measured in one
//! run of it instead of the eleven criterion needs.
//!
//! **Set-up is not timed.** A scenario's timer starts when its visitor gets the store, after
//! [`FreshStores`] has made the directory, opened the store (files, schema, an `lmdb-async`
//! store's first space reservation, a server connection; a shared server was started with the
//! stores) and touched it ([`triebench_kv::first_touch`]: every table written, read and emptied
//! again). What that set-up costs per store is its own line, [`SETUP_OPEN_GROUP`]`/<profile>`:
//! one sample per measured run (the warm-up runs left out), from the run's start to its
//! visitor's; a user pays it once per store, so it is kept out of the scenarios (it was inside
//! `lmdb-async`'s first commit on tmpfs, where reserving 2 MiB costs half a millisecond, and made
//! its small scenarios slower on tmpfs than on a disk).
//!
//! The caller first warms what the trie keeps per thread
//! ([`warm_trie`](crate::trie_warm_up::warm_trie): untimed runs of `update` on `btree`),
//! as for the phase breakdown. Per profile: one untimed run of each scenario but `update` warms
//! the store's server, connections and caches; then rounds, at least one and at most
//! `max_rounds`, as many as the time budget allows (the first round's runs size the rest). A
//! round is: a **floor block**, then one run of `update` (ten samples), then runs of each other
//! scenario until it has ten more samples; after the rounds every scenario has the same number
//! of samples and the suite's sample *j* is the sum of the scenarios'.
//!
//! **Floors measured with what they bound.** A floor block is [`FLOOR_COMMITS`] of `update`'s
//! commits, their recorded writes replayed straight on a fresh store preloaded with the commits
//! before them ([`triebench_workloads::floor`]: the timed commits are `update`'s 350..650, so the
//! tables have the size they average over an `update` run), dealt round-robin into [`GROUPS`]
//! samples of 30 commits each as `update`'s commits are dealt into its ten samples. So
//! `floor/commit/<profile>` and `scenario/update/<profile>` have the same number of samples,
//! and sample *i* of each was taken in round *i* / [`GROUPS`], minutes at most apart rather than
//! a whole profile's run: the report pairs them sample by sample
//! (`triebench_report::analysis::above_floor`).

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

/// Group of each profile's set-up line (`setup/open/<profile>`): per-iteration time of making,
/// opening and touching one fresh store, which the scenarios' timers leave out.
pub const SETUP_OPEN_GROUP: &str = "setup/open";

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
    /// `scenario/<name>/<profile>` for each scenario, then `scenario/suite/<profile>`,
    /// `floor/commit/<profile>` and `setup/open/<profile>`.
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

/// Runs one scenario on an opened store: when the visit began (the store opened and touched),
/// the scenario's wall time and laps.
struct Timed {
    scenario: Scenario,
    profile: Profile,
}

impl StoreVisitor for Timed {
    type Output = Result<(Instant, Duration, Vec<Lap>), MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let start = Instant::now();
        let outcome = self.scenario.run(&store);
        let wall = start.elapsed();
        let outcome =
            outcome.map_err(|e| MeasureError::scenario(self.scenario, self.profile, e))?;
        Ok((start, wall, outcome.laps))
    }
}

/// One floor block: [`FLOOR_COMMITS`] floor commits on a preloaded store (the recording of
/// `update`'s writes, the preload and the selection of each commit untimed), dealt
/// round-robin into [`GROUPS`] samples as `update`'s commits are ([`floor_samples`]).
struct FloorBlock;

impl StoreVisitor for FloorBlock {
    type Output = Result<Vec<Sample>, MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let mut floor = FloorCommits::new(&store)?;
        floor.preload(&store)?;
        let commits = (0..FLOOR_COMMITS)
            .map(|_| {
                floor.prepare();
                let start = Instant::now();
                floor.commit(&store)?;
                Ok(start.elapsed().as_nanos() as f64)
            })
            .collect::<Result<Vec<f64>, MeasureError>>()?;
        Ok(floor_samples(&commits))
    }
}

/// A floor block's [`GROUPS`] samples: commit *i* goes to sample *i* mod [`GROUPS`] (so each
/// sample spans the whole block, as `update`'s samples span its run), each sample's
/// per-iteration time one floor commit (its total over its commits).
fn floor_samples(commits: &[f64]) -> Vec<Sample> {
    (0..GROUPS)
        .map(|g| {
            let mine: Vec<f64> = commits.iter().skip(g).step_by(GROUPS).copied().collect();
            Sample {
                iterations: mine.len() as u64,
                total: mine.iter().sum(),
            }
        })
        .filter(|s| s.iterations > 0)
        .collect()
}

/// What one run of a scenario gave.
struct OneRun {
    /// Its samples ([`run_samples`]).
    samples: Vec<f64>,
    /// Creating, opening and touching its fresh store (ns): the `setup/open` line.
    open_ns: f64,
    /// Its cost, set-up and removal included.
    cost: Duration,
}

/// One run of `scenario` on a fresh store: its samples, its store's set-up and its cost.
fn one_run(
    stores: &FreshStores,
    profile: Profile,
    scenario: Scenario,
) -> Result<OneRun, MeasureError> {
    let start = Instant::now();
    let (began, wall, laps) =
        stores.try_run(triebench_merkle::TABLES, Timed { scenario, profile })??;
    Ok(OneRun {
        samples: run_samples(wall, &laps),
        open_ns: began.duration_since(start).as_nanos() as f64,
        cost: start.elapsed(),
    })
}

/// One floor block on a fresh store: its samples and its cost with set-up.
fn floor_block(stores: &FreshStores) -> Result<(Vec<Sample>, Duration), MeasureError> {
    let start = Instant::now();
    let samples = stores.try_run(triebench_merkle::TABLES, FloorBlock)??;
    Ok((samples, start.elapsed()))
}

/// The most rounds (samples = rounds × [`GROUPS`]) whose remaining runs fit `plan`, given each
/// scenario's (and the floor block's) samples per run and cost per run, after `spent` so far
/// and one run each.
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
        out.push(profile_headline(dir, profile, plan)?);
        if let Some(h) = out.last() {
            progress(h);
        }
    }
    Ok(out)
}

/// One profile's headline (see the module docs for the order of its runs).
fn profile_headline(
    dir: &Path,
    profile: Profile,
    plan: Plan,
) -> Result<ProfileHeadline, MeasureError> {
    let start = Instant::now();
    let stores = FreshStores::new(profile, dir)?;
    let mut runs = vec![0usize; SCENARIOS.len()];
    for (i, &scenario) in SCENARIOS.iter().enumerate() {
        if scenario != Scenario::Update {
            one_run(&stores, profile, scenario)?;
            runs[i] += 1;
        }
    }
    // Round 0 begins with its floor block and one run of each scenario, which size the rest.
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); SCENARIOS.len()];
    let mut opens: Vec<f64> = Vec::new();
    let (mut floor, floor_cost) = floor_block(&stores)?;
    let mut per_run = vec![(floor.len(), floor_cost)];
    for (i, &scenario) in SCENARIOS.iter().enumerate() {
        let run = one_run(&stores, profile, scenario)?;
        runs[i] += 1;
        per_run.push((run.samples.len(), run.cost));
        samples[i].extend(run.samples);
        opens.push(run.open_ns);
    }
    let rounds = rounds_within(plan, &per_run, start.elapsed());
    for round in 0..rounds {
        if round > 0 {
            floor.extend(floor_block(&stores)?.0);
        }
        let target = (round + 1) * GROUPS;
        for (i, &scenario) in SCENARIOS.iter().enumerate() {
            while samples[i].len() < target {
                let run = one_run(&stores, profile, scenario)?;
                runs[i] += 1;
                samples[i].extend(run.samples);
                opens.push(run.open_ns);
            }
        }
    }
    let target = rounds * GROUPS;
    for s in &mut samples {
        s.truncate(target);
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
    benchmarks.push(Benchmark::ns(FLOOR_COMMIT_GROUP, name, Some(name), floor));
    benchmarks.push(Benchmark::ns(
        SETUP_OPEN_GROUP,
        name,
        Some(name),
        one_each(&opens),
    ));
    Ok(ProfileHeadline {
        profile,
        benchmarks,
        runs,
        wall: start.elapsed(),
    })
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

    /// A floor block gives as many samples as a run of `update`, each spanning the block
    /// (commit i in sample i mod 10) and timing one commit per iteration.
    #[test]
    fn a_floor_block_is_dealt_into_ten_samples_like_update() {
        let commits: Vec<f64> = (0..FLOOR_COMMITS).map(|i| i as f64).collect();
        let samples = floor_samples(&commits);
        assert_eq!(samples.len(), GROUPS);
        for (g, s) in samples.iter().enumerate() {
            assert_eq!(s.iterations as usize, FLOOR_COMMITS / GROUPS);
            let expect: f64 = (g..FLOOR_COMMITS).step_by(GROUPS).map(|i| i as f64).sum();
            assert_eq!(s.total, expect, "sample {g}");
        }
        let mean: f64 = samples
            .iter()
            .map(|s| s.total / s.iterations as f64)
            .sum::<f64>()
            / GROUPS as f64;
        let expect = (FLOOR_COMMITS - 1) as f64 / 2.0;
        assert!((mean - expect).abs() < 1e-9, "{mean}");
    }
}
