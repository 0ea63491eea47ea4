//! Runs a field workload ([`triebench_workloads::field`]) on a store: its setup commits
//! untimed, then each timed commit timed alone (commit and moving the head to its root), into a
//! [`FieldResult`]: commits/s, leaves/s, p50/p99 per commit, and per kind of single-kind
//! commit inserts/s, updates/s; a timed batch of reads (Merk's) is timed alone too, each read
//! at the current root, into reads/s (it is no commit: commits/s and the latencies leave it
//! out). Old roots are kept (no prune), as the authors' benchmarks keep their revisions' roots
//! readable. The commits run are hashed as they pass ([`CommitsDigest`], untimed), so another
//! program given the same workload (Merk's own code, [`merk_runner`](crate::merk_runner)) can
//! show it ran the same ones.

use std::time::Instant;

use hdrhistogram::Histogram;
use triebench_kv::{Store, StoreVisitor};
use triebench_merkle::MerkleTrie;
use triebench_record::field::FieldResult;
use triebench_record::grow::Latency;
use triebench_workloads::field::{CommitsDigest, FieldCommit, FieldWorkload, OpKind, Phase};

use crate::error::MeasureError;
use crate::timed::elapsed_ns;

/// What to run.
#[derive(Debug, Clone, Copy)]
pub struct FieldPlan {
    /// The workload.
    pub workload: FieldWorkload,
    /// Its scale (see each workload for what it multiplies).
    pub scale: u64,
    /// The seed.
    pub seed: u64,
}

/// A [`StoreVisitor`] that runs `plan` on the store it is given; `progress` is told each
/// commit's number (setup and timed together) and the total so far.
pub struct FieldRun<'p> {
    /// What to run.
    pub plan: FieldPlan,
    /// The profile's name, for the result.
    pub profile: String,
    /// Called after every commit with (commits done, whether it was timed).
    pub progress: &'p mut dyn FnMut(u64, bool),
}

impl StoreVisitor for FieldRun<'_> {
    type Output = Result<FieldResult, MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let FieldRun {
            plan,
            profile,
            progress,
        } = self;
        let mut trie = MerkleTrie::new(&store)?;
        // ns, 1 ns .. 10 min, 3 significant figures: constant bounds hdrhistogram accepts.
        let mut histogram = Histogram::<u64>::new_with_bounds(1, 600_000_000_000, 3)
            .expect("constant histogram bounds are valid");
        let mut result = FieldResult {
            workload: plan.workload.name().to_string(),
            profile,
            scale: plan.scale,
            seed: plan.seed,
            ..FieldResult::default()
        };
        let mut total_ns = 0u64;
        let mut done = 0u64;
        // (operations, ns) of the timed single-kind commits: inserts, updates, reads.
        let mut kinds = [(0u64, 0u64); 3];
        let mut digest = CommitsDigest::new();
        for (phase, commit) in plan.workload.commits(plan.scale, plan.seed) {
            digest.add(phase, &commit);
            if !commit.reads.is_empty() && commit.leaves() == 0 {
                let ns = read_batch(&trie, &commit, plan.workload)?;
                if phase == Phase::Timed {
                    result.reads += commit.reads.len() as u64;
                    kinds[2].0 += commit.reads.len() as u64;
                    kinds[2].1 = kinds[2].1.saturating_add(ns);
                }
                // Not a commit: progress counts commits.
                continue;
            }
            let changes = commit.changes();
            let start = Instant::now();
            let root = trie.commit(&changes)?;
            trie.set_root(&root)?;
            let ns = elapsed_ns(start);
            match phase {
                Phase::Setup => result.setup_commits += 1,
                Phase::Timed => {
                    result.commits += 1;
                    result.leaves += commit.leaves() as u64;
                    total_ns = total_ns.saturating_add(ns);
                    histogram.saturating_record(ns);
                    let slot = match commit.kind() {
                        Some(OpKind::Inserts) => Some(0),
                        Some(OpKind::Updates) => Some(1),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        kinds[slot].0 += commit.leaves() as u64;
                        kinds[slot].1 = kinds[slot].1.saturating_add(ns);
                    }
                }
            }
            result.final_root = root;
            done += 1;
            progress(done, phase == Phase::Timed);
        }
        let rate =
            |(ops, ns): (u64, u64)| (ops > 0 && ns > 0).then(|| ops as f64 * 1e9 / ns as f64);
        result.inserts_per_s = rate(kinds[0]);
        result.updates_per_s = rate(kinds[1]);
        result.reads_per_s = rate(kinds[2]);
        result.commits_sha256 = Some(digest.finish());
        let us = |ns: u64| ns as f64 / 1000.0;
        result.total_s = total_ns as f64 / 1e9;
        if result.total_s > 0.0 {
            result.commits_per_s = result.commits as f64 / result.total_s;
            result.leaves_per_s = result.leaves as f64 / result.total_s;
        }
        result.commit = Latency {
            count: histogram.len(),
            p50_us: us(histogram.value_at_quantile(0.5)),
            p99_us: us(histogram.value_at_quantile(0.99)),
            max_us: us(histogram.max()),
        };
        Ok(result)
    }
}

/// Reads every address of a read batch at the trie's current root, timed together; a leaf
/// the run wrote that reads as absent is an error. Returns the nanoseconds the reads took.
fn read_batch<S: Store>(
    trie: &MerkleTrie<'_, S>,
    commit: &FieldCommit,
    workload: FieldWorkload,
) -> Result<u64, MeasureError> {
    let start = Instant::now();
    let mut missing = None;
    for address in &commit.reads {
        if trie.get(address)?.is_none() && missing.is_none() {
            missing = Some(address);
        }
    }
    let ns = elapsed_ns(start);
    match missing {
        Some(address) => Err(MeasureError::FieldRead {
            workload: workload.name().to_string(),
            address: address.clone(),
        }),
        None => Ok(ns),
    }
}
