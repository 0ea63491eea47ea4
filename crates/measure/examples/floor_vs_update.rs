//! Whether a floor commit bounds the `update` commits it stands for: in alternating rounds on
//! fresh stores of each profile named, a floor block (`update`'s commits 350..650 replayed on a
//! preloaded store, as the headline takes it) and one `update` run, whose laps give the time
//! of each of its single-key commits (the trie's work, its reads inside the commit and the
//! storage writes); prints the mean floor commit beside the mean of `update`'s commits 350..650
//! and of all its single-key commits.
//!
//! `cargo run -p triebench-measure --all-features --example floor_vs_update -- DIR ROUNDS PROFILE...`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_workloads::floor::{FloorCommits, FLOOR_COMMITS, PRELOAD_COMMITS};
use triebench_workloads::{Scenario, Step};

type Error = Box<dyn std::error::Error>;

/// One floor block: the mean commit (µs).
struct Floor;

impl StoreVisitor for Floor {
    type Output = Result<f64, Error>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let mut floor = FloorCommits::new(&store)?;
        floor.preload(&store)?;
        let mut total = Duration::ZERO;
        for _ in 0..FLOOR_COMMITS {
            floor.prepare();
            let start = Instant::now();
            floor.commit(&store)?;
            total += start.elapsed();
        }
        Ok(total.as_secs_f64() * 1e6 / FLOOR_COMMITS as f64)
    }
}

/// One `update` run: the mean of its single-key commits 350..650 and of all of them (µs).
struct Update;

impl StoreVisitor for Update {
    type Output = Result<(f64, f64), Error>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let outcome = Scenario::Update.run(&store)?;
        let commits: Vec<f64> = outcome
            .laps
            .iter()
            .filter(|l| l.step == Step::Commit { changes: 1 })
            .map(|l| l.elapsed.as_secs_f64() * 1e6)
            .collect();
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
        let middle = commits
            .get(PRELOAD_COMMITS..PRELOAD_COMMITS + FLOOR_COMMITS)
            .unwrap_or(&[]);
        Ok((mean(middle), mean(&commits)))
    }
}

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: floor_vs_update DIR ROUNDS PROFILE...";
    let dir = PathBuf::from(args.next().ok_or(usage)?);
    let rounds: usize = args.next().ok_or(usage)?.parse()?;
    for name in args {
        let profile: Profile = name.parse()?;
        let stores = FreshStores::new(profile, &dir)?;
        for round in 0..rounds {
            let floor = stores.run(triebench_merkle::TABLES, Floor)??;
            let (middle, all) = stores.run(triebench_merkle::TABLES, Update)??;
            println!(
                "{name:16} round {round}: floor commit {floor:>8.1} µs, update's commits \
                 350..650 {middle:>8.1} µs, all {all:>8.1} µs"
            );
        }
    }
    Ok(())
}
