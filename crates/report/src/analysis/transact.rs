//! triebench vs Transact (feature `transact`): for every run and every scenario measured by both
//! implementations on the same store profile, both times and `Transact / triebench` with its
//! bootstrap interval; and per implementation, its slowdown on each run vs the baseline run.

use std::collections::BTreeMap;

use crate::analysis::stats::{bootstrap_ratio, fnv1a, mean, RatioCi, CONFIDENCE, SEED};
use crate::model::bench_id::{split_implementation, BenchKey, BenchKind, OURS};
use crate::model::results::ResultSet;

/// One side-by-side comparison in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct VersusRow {
    /// The run (filesystem) name.
    pub run: String,
    /// The scenario (or `suite`).
    pub scenario: String,
    /// The other implementation, e.g. `transact-0.4.7`.
    pub implementation: String,
    /// The store profile both ran on (theirs).
    pub profile: String,
    /// The profile of ours it is compared with: the same, except Transact's Redis (a round trip
    /// per read) against our `redis-uncached` ([`our_counterpart`]).
    pub ours_profile: String,
    /// Our mean time per iteration (ns).
    pub ours_ns: f64,
    /// Theirs (ns).
    pub theirs_ns: f64,
    /// `theirs / ours` with its interval (`None` if the samples do not allow one).
    pub ratio: Option<RatioCi>,
}

/// One implementation's slowdown on a run vs the baseline run.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowdownRow {
    /// The run.
    pub run: String,
    /// The implementation (`triebench` for ours).
    pub implementation: String,
    /// The profile.
    pub profile: String,
    /// `time on run / time on baseline`, with its interval.
    pub slowdown: Option<RatioCi>,
}

/// Which Transact implementations commit durably (an fsync per commit). Transact's LMDB flags
/// (WRITEMAP, MAPASYNC) never sync; its SQLite modes sync as their journal mode says; Redis has
/// no persistence. Mirrors `triebench_transact::Implementation::fsyncs_per_commit`.
pub fn transact_fsyncs(implementation: &str, profile: &str) -> Option<bool> {
    if !implementation.starts_with("transact-") {
        return None;
    }
    match profile {
        "btree" | "lmdb" | "sqlite-wal" | "redis" => Some(false),
        "sqlite-wal-full" | "sqlite-rollback" | "postgres" => Some(true),
        _ => None,
    }
}

fn seed(parts: &[&str]) -> u64 {
    SEED ^ fnv1a(&parts.join("|"))
}

/// Our profile that does the same work as another implementation's `profile`: the same name,
/// except Redis: Transact reads every node from the server, which is our `redis-uncached` (our
/// `redis` serves nodes it wrote or read from its cache, a different charge for the backend).
pub fn our_counterpart(profile: &str) -> &str {
    match profile {
        "redis" => "redis-uncached",
        other => other,
    }
}

/// Every scenario key of another implementation, with the key of ours on the counterpart
/// profile ([`our_counterpart`]).
fn pairs(results: &ResultSet) -> Vec<(BenchKey, BenchKey, String, String, String)> {
    results
        .all_keys()
        .into_iter()
        .filter_map(|key| {
            let BenchKind::Scenario { scenario, profile } = key.kind() else {
                return None;
            };
            let (implementation, store) = split_implementation(&profile);
            if implementation == OURS {
                return None;
            }
            let ours = key.with_profile(our_counterpart(store))?;
            Some((
                key.clone(),
                ours,
                scenario,
                implementation.to_string(),
                store.to_string(),
            ))
        })
        .collect()
}

/// The side-by-side rows of every run, in run order, then scenario, implementation, profile.
pub fn versus(results: &ResultSet, resamples: usize) -> Vec<VersusRow> {
    let mut out = Vec::new();
    for run in results.run_names() {
        for (theirs_key, ours_key, scenario, implementation, profile) in pairs(results) {
            let (Some(theirs), Some(ours)) =
                (results.get(&run, &theirs_key), results.get(&run, &ours_key))
            else {
                continue;
            };
            let ratio = bootstrap_ratio(
                &theirs.per_iter_ns,
                &ours.per_iter_ns,
                resamples,
                CONFIDENCE,
                seed(&[&run, &theirs_key.full_id()]),
            );
            out.push(VersusRow {
                run: run.clone(),
                scenario,
                implementation,
                ours_profile: our_counterpart(&profile).to_string(),
                profile,
                ours_ns: mean(&ours.per_iter_ns).unwrap_or(ours.mean.point),
                theirs_ns: mean(&theirs.per_iter_ns).unwrap_or(theirs.mean.point),
                ratio,
            });
        }
    }
    out
}

/// Slowdowns of the suite vs the baseline run, for every implementation (ours included) on
/// every profile some other implementation also ran; runs other than the baseline only.
pub fn suite_slowdowns(results: &ResultSet, resamples: usize) -> Vec<SlowdownRow> {
    let Some(baseline) = results.baseline().map(|r| r.name.clone()) else {
        return Vec::new();
    };
    let mut keys: BTreeMap<(String, String), BenchKey> = BTreeMap::new();
    for (theirs, ours, scenario, implementation, profile) in pairs(results) {
        if scenario != crate::model::bench_id::SUITE {
            continue;
        }
        // Ours under its own profile name: Transact's `redis` is set beside our
        // `redis-uncached`, and the row must say which of ours it is.
        keys.insert(
            (OURS.to_string(), our_counterpart(&profile).to_string()),
            ours,
        );
        keys.insert((implementation, profile), theirs);
    }
    let mut out = Vec::new();
    for run in results.run_names().into_iter().filter(|r| *r != baseline) {
        for ((implementation, profile), key) in &keys {
            let (Some(slow), Some(base)) = (results.get(&run, key), results.get(&baseline, key))
            else {
                continue;
            };
            out.push(SlowdownRow {
                run: run.clone(),
                implementation: implementation.clone(),
                profile: profile.clone(),
                slowdown: bootstrap_ratio(
                    &slow.per_iter_ns,
                    &base.per_iter_ns,
                    resamples,
                    CONFIDENCE,
                    seed(&[&run, &baseline, &key.full_id()]),
                ),
            });
        }
    }
    out
}
