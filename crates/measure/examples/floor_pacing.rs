//! Whether a floor commit costs more back to back than spaced out: replays `update`'s recorded
//! commits 350..650 on a preloaded fresh store of each profile named, once back to back and
//! once with an untimed pause between commits, alternating blocks, and prints the mean commit.
//!
//! `cargo run -p triebench-measure --all-features --example floor_pacing -- DIR PAUSE_US PROFILE...`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_workloads::floor::{FloorCommits, FLOOR_COMMITS};

/// One floor block with `pause` between commits: the mean commit (µs).
struct Block {
    pause: Duration,
}

impl StoreVisitor for Block {
    type Output = Result<f64, Box<dyn std::error::Error>>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let mut floor = FloorCommits::new(&store)?;
        floor.preload(&store)?;
        let mut total = Duration::ZERO;
        for _ in 0..FLOOR_COMMITS {
            floor.prepare();
            std::thread::sleep(self.pause);
            let start = Instant::now();
            floor.commit(&store)?;
            total += start.elapsed();
        }
        Ok(total.as_secs_f64() * 1e6 / FLOOR_COMMITS as f64)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: floor_pacing DIR PAUSE_US PROFILE...")?,
    );
    let pause_us: u64 = args.next().ok_or("PAUSE_US")?.parse()?;
    for name in args {
        let profile: Profile = name.parse()?;
        let stores = FreshStores::new(profile, &dir)?;
        for _ in 0..3 {
            for pause in [Duration::ZERO, Duration::from_micros(pause_us)] {
                let mean = stores.run(triebench_merkle::TABLES, Block { pause })??;
                println!(
                    "{name:16} pause {:>6} µs: floor commit {mean:>9.1} µs",
                    pause.as_micros()
                );
            }
        }
    }
    Ok(())
}
