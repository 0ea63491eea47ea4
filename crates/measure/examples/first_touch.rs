//! Where a fresh store's one-time costs go: for each profile named on the command line, opens
//! fresh stores under a directory as `triebench headline` does ([`FreshStores`]: the store
//! opened and first-touched before the visit) and prints, per store, the time outside the
//! visit (making, opening, touching and removing it) and, inside it, a read, an empty write
//! transaction and three one-`put` transactions. Run it on tmpfs and on a disk:
//!
//! `cargo run -p triebench-measure --all-features --example first_touch -- /dev/shm lmdb-async`

use std::path::PathBuf;
use std::time::Instant;

use triebench_kv::{FreshStores, KvResult, Profile, ReadTx, Store, StoreVisitor, WriteTx};

/// Times three one-put write transactions on the store it visits.
struct Commits;

impl StoreVisitor for Commits {
    type Output = KvResult<Vec<u128>>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let table = store.table(triebench_merkle::TABLES[0])?;
        (0u8..5)
            .map(|i| {
                let start = Instant::now();
                if i == 0 {
                    let r = store.reader()?;
                    r.get(table, b"k")?;
                    drop(r);
                    return Ok(start.elapsed().as_micros());
                }
                let mut w = store.writer()?;
                if i > 1 {
                    w.put(table, &[b'k', i], &[i; 100])?;
                }
                w.commit()?;
                Ok(start.elapsed().as_micros())
            })
            .collect()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: first_touch DIR PROFILE...")?);
    for name in args {
        let profile: Profile = name.parse()?;
        let stores = FreshStores::new(profile, &dir)?;
        for _ in 0..6 {
            let start = Instant::now();
            let commits = stores.run(triebench_merkle::TABLES, Commits)??;
            let whole = start.elapsed().as_micros();
            let sum: u128 = commits.iter().sum();
            println!(
                "{name:16} {} open+discard {:>7} µs  a read, an empty commit, then commits 1,2,3: {:?} µs",
                dir.display(),
                whole - sum,
                commits
            );
        }
    }
    Ok(())
}
