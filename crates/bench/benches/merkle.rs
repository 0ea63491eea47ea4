//! Criterion benches of the trie on every backend profile built in.
//!
//! Groups (names are read by `triebench report`):
//! - `scenario/<name>`, function = profile: one of Transact's ten scenarios, each iteration on a
//!   fresh store in a fresh directory under `TMPDIR` (opening and removing it is not timed).
//! - `scenario/suite`, function = profile: all ten in one measurement, the figure the published
//!   Transact study reports.
//! - `scale/commit_size/<profile>` (changes per commit), `scale/state_size/<profile>` (leaves
//!   before the measured single-key commits), `scale/reads/<profile>` (`hit`, `miss`),
//!   `scale/leaves/<profile>` (iterating a subtree), `scale/prune/<profile>` (pruning a chain of
//!   roots).
//!
//! The scenario groups are the headline and always run; the `scale/...` groups run with
//! `TRIEBENCH_GROUPS=all` (default at full scale) or when `TRIEBENCH_FILTER` names them.
//! `triebench bench` (`scripts/bench-fs.sh`) measures the scenario groups with
//! `triebench headline` instead (same ids, saved as a run record; samples taken within runs, one
//! run where criterion needs eleven) unless given `--criterion`.
//! `TRIEBENCH_SCALE=quick|standard|full` sets the sizes; `TRIEBENCH_PROFILES=a,b` narrows the
//! profiles; `TRIEBENCH_SAMPLES=N` (at least 10) fixes the samples per benchmark.
//!
//! `cargo bench --features sqlite-db --bench merkle -- --profile-time 10 scenario/suite/sqlite-wal`
//! profiles instead of measuring: each selected benchmark runs for 10 s while `pprof` samples it,
//! and its flamegraph goes to `<criterion-dir>/<id>/profile/flamegraph.svg`.

mod support;

use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use support::{
    announce_filesystem, configure, configure_runs, extra_selected, fresh_stores, measuring,
    profiles, selected, Scale,
};
use triebench_kv::{KvError, Profile, Store, StoreVisitor};
use triebench_merkle::{MerkleTrie, TABLES};
use triebench_workloads::scalable::{fresh_sets as sets, preload};
use triebench_workloads::{update_address, Scenario, SCENARIOS};

/// Opens a fresh store for `profile` under `TMPDIR` and runs `visitor` on it (a PostgreSQL store
/// is a fresh schema on the bench's one server: `support::fresh_stores`).
fn with_fresh_store<V: StoreVisitor>(profile: Profile, visitor: V) -> Result<V::Output, KvError> {
    fresh_stores::run(profile, TABLES, visitor)
}

/// Times the given scenarios back to back, each on its own fresh store (opening and removing the
/// stores is not timed).
fn time_scenarios(profile: Profile, scenarios: &[Scenario]) -> Duration {
    struct Timed(Scenario);
    impl StoreVisitor for Timed {
        type Output = Duration;
        fn visit<S: Store + 'static>(self, store: S) -> Duration {
            let start = Instant::now();
            let outcome = self.0.run(&store);
            let elapsed = start.elapsed();
            if let Err(e) = outcome {
                panic!("scenario {} failed: {e}", self.0);
            }
            elapsed
        }
    }
    scenarios
        .iter()
        .map(|&s| with_fresh_store(profile, Timed(s)).unwrap_or_else(|e| panic!("{profile}: {e}")))
        .sum()
}

fn bench_scenarios(c: &mut Criterion) {
    announce_filesystem();
    let scale = Scale::from_env();
    let profiles = profiles();
    let mut groups: Vec<(String, Vec<Scenario>)> = SCENARIOS
        .iter()
        .map(|s| (s.name().to_string(), vec![*s]))
        .collect();
    groups.push(("suite".to_string(), SCENARIOS.to_vec()));
    for (name, scenarios) in groups {
        let mut group = c.benchmark_group(format!("scenario/{name}"));
        for &profile in &profiles {
            if !selected(&format!("scenario/{name}/{profile}")) {
                continue;
            }
            // One run, untimed by criterion, sizes the benchmark by its wall time (not needed
            // when each benchmark runs once, as `cargo test --benches` does).
            if measuring() {
                let start = Instant::now();
                let timed = time_scenarios(profile, &scenarios);
                let wall = start.elapsed();
                configure_runs(&mut group, scale, name == "suite", timed, wall);
            }
            group.bench_function(profile.name(), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| time_scenarios(profile, &scenarios))
                        .sum()
                })
            });
        }
        group.finish();
    }
}

type Group<'a, 'c> = &'a mut BenchmarkGroup<'c, WallTime>;

/// Commits batches of fresh sets of each size on a trie that grows as it goes.
struct CommitSize<'a, 'c>(Group<'a, 'c>, &'a [usize], usize);
impl StoreVisitor for CommitSize<'_, '_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let CommitSize(group, sizes, base) = self;
        let mut trie =
            MerkleTrie::at_root(&store, &preload(&store, base).expect("preload")).expect("root");
        let mut next = base;
        for &n in sizes {
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let batch = sets(next, n);
                        next += n;
                        let start = Instant::now();
                        let root = trie.commit(&batch).expect("commit");
                        total += start.elapsed();
                        trie.set_root(&root).expect("advance root");
                    }
                    total
                })
            });
        }
    }
}

/// Single-key commits on a trie already holding `leaves` leaves.
struct StateSize<'a, 'c>(Group<'a, 'c>, usize);
impl StoreVisitor for StateSize<'_, '_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let StateSize(group, leaves) = self;
        let mut trie =
            MerkleTrie::at_root(&store, &preload(&store, leaves).expect("preload")).expect("root");
        let mut next = leaves;
        group.throughput(Throughput::Elements(1));
        group.bench_function(BenchmarkId::from_parameter(leaves), |b| {
            b.iter(|| {
                let root = trie.commit(&sets(next, 1)).expect("commit");
                next += 1;
                trie.set_root(&root).expect("advance root");
            })
        });
    }
}

/// Point reads, hits and misses, on a trie of `leaves` leaves.
struct Reads<'a, 'c>(Group<'a, 'c>, usize);
impl StoreVisitor for Reads<'_, '_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let Reads(group, leaves) = self;
        let trie =
            MerkleTrie::at_root(&store, &preload(&store, leaves).expect("preload")).expect("root");
        let hits: Vec<String> = (0..100)
            .map(|i| update_address((i * 7919 % leaves) as u32))
            .collect();
        let misses: Vec<String> = (0..100)
            .map(|i| update_address((leaves + i) as u32))
            .collect();
        group.throughput(Throughput::Elements(100));
        for (name, addresses) in [("hit", &hits), ("miss", &misses)] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    for a in addresses.iter() {
                        black_box(trie.get(a).expect("get"));
                    }
                })
            });
        }
    }
}

/// Iterates the leaves under a two-character prefix (about 1/256 of them) of a trie of
/// `leaves` leaves.
struct Leaves<'a, 'c>(Group<'a, 'c>, usize);
impl StoreVisitor for Leaves<'_, '_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let Leaves(group, leaves) = self;
        let trie =
            MerkleTrie::at_root(&store, &preload(&store, leaves).expect("preload")).expect("root");
        let first = update_address(0);
        let prefix = &first[..2];
        let count = trie.leaves(prefix).expect("leaves").len();
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(BenchmarkId::new("prefix2", leaves), |b| {
            b.iter(|| black_box(trie.leaves(prefix).expect("leaves").len()))
        });
    }
}

/// Prunes a chain of `commits` single-key roots, oldest first.
struct Prune<'a, 'c>(Group<'a, 'c>, usize);
impl StoreVisitor for Prune<'_, '_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let Prune(group, commits) = self;
        let mut trie =
            MerkleTrie::at_root(&store, &preload(&store, 1000).expect("preload")).expect("root");
        let mut next = 1000;
        group.throughput(Throughput::Elements(commits as u64));
        group.bench_function(BenchmarkId::from_parameter(commits), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut chain = vec![trie.root().to_string()];
                    for _ in 0..commits {
                        let root = trie.commit(&sets(next, 1)).expect("commit");
                        next += 1;
                        trie.set_root(&root).expect("advance root");
                        chain.push(root);
                    }
                    let start = Instant::now();
                    for root in &chain[..commits] {
                        black_box(MerkleTrie::prune(&store, root).expect("prune"));
                    }
                    total += start.elapsed();
                }
                total
            })
        });
    }
}

/// Runs `f` with a configured group named `scale/<name>/<profile>`; errors are reported, not fatal.
///
/// `ids` are the benchmark ids `f` will define under the group (`<function>/<value>` or
/// `<value>`): when `TRIEBENCH_FILTER` selects none of them, the group's set-up (preloading up
/// to 100k leaves) is skipped too, which matters on slow storage.
fn in_group(
    c: &mut Criterion,
    name: &str,
    profile: Profile,
    scale: Scale,
    ids: &[String],
    f: impl FnOnce(Group<'_, '_>) -> Result<(), KvError>,
) {
    let group_name = format!("scale/{name}/{profile}");
    if !ids
        .iter()
        .any(|id| extra_selected(&format!("{group_name}/{id}")))
    {
        return;
    }
    let mut group = c.benchmark_group(group_name.clone());
    configure(&mut group, scale, Some(profile));
    if let Err(e) = f(&mut group) {
        eprintln!("{group_name}: {e}");
    }
    group.finish();
}

fn bench_scalable(c: &mut Criterion) {
    announce_filesystem();
    let scale = Scale::from_env();
    let commit_sizes: &[usize] = match scale {
        Scale::Quick => &[1, 10, 100],
        _ => &[1, 10, 100, 1000],
    };
    let state_sizes: Vec<usize> = [1_000, 10_000, 100_000].map(|n| scale.size(n)).to_vec();
    let base = scale.size(1000);
    let read_leaves = scale.size(10_000);
    let names = |values: &[usize]| values.iter().map(usize::to_string).collect::<Vec<_>>();
    let prune_commits = scale.size(100);
    for profile in profiles() {
        in_group(
            c,
            "commit_size",
            profile,
            scale,
            &names(commit_sizes),
            |g| with_fresh_store(profile, CommitSize(g, commit_sizes, base)),
        );
        in_group(c, "state_size", profile, scale, &names(&state_sizes), |g| {
            for &leaves in &state_sizes {
                with_fresh_store(profile, StateSize(&mut *g, leaves))?;
            }
            Ok(())
        });
        let reads = ["hit".to_string(), "miss".to_string()];
        in_group(c, "reads", profile, scale, &reads, |g| {
            with_fresh_store(profile, Reads(g, read_leaves))
        });
        let leaves = [format!("prefix2/{read_leaves}")];
        in_group(c, "leaves", profile, scale, &leaves, |g| {
            with_fresh_store(profile, Leaves(g, read_leaves))
        });
        in_group(c, "prune", profile, scale, &names(&[prune_commits]), |g| {
            with_fresh_store(profile, Prune(g, prune_commits))
        });
    }
}

criterion_group! {
    name = benches;
    config = support::flamegraph::criterion();
    targets = bench_scenarios, bench_scalable
}
/// `criterion_main!` after `support::begin` (criterion's plot font, idle CPUs held as
/// `TRIEBENCH_CPU_IDLE` asks), plus the guard that stops the fresh stores' shared servers at the end.
fn main() {
    let _bench = support::begin();
    let _stores = fresh_stores::Guard;
    benches();
    Criterion::default().configure_from_args().final_summary();
}
