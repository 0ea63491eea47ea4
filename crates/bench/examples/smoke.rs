//! Smoke run of every backend profile built in: opens each through `BackendSpec` in a fresh
//! directory under `TMPDIR`, commits, reads back, and prints rough timings.
//!
//! `cargo run --release --features all-backends --example smoke`
//!
//! This is a quick check that every backend works on the filesystem `TMPDIR` names; the real
//! measurements come from the criterion benches.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use triebench_kv::{BackendSpec, KvResult, Profile, ReadTx, Store, StoreVisitor, WriteTx};

const KEYS: u32 = 1000;

struct Smoke;

struct Timings {
    single_commits: Duration,
    batch_commit: Duration,
    reads: Duration,
}

impl StoreVisitor for Smoke {
    type Output = KvResult<Timings>;

    fn visit<S: Store + 'static>(self, store: S) -> KvResult<Timings> {
        let table = store.table("main")?;
        let start = Instant::now();
        for i in 0..KEYS {
            let mut w = store.writer()?;
            w.put(table, &i.to_be_bytes(), format!("value {i}").as_bytes())?;
            w.commit()?;
        }
        let single_commits = start.elapsed();

        let start = Instant::now();
        let mut w = store.writer()?;
        for i in KEYS..2 * KEYS {
            w.insert(table, &i.to_be_bytes(), format!("value {i}").as_bytes())?;
        }
        w.commit()?;
        let batch_commit = start.elapsed();

        let start = Instant::now();
        let r = store.reader()?;
        for i in 0..2 * KEYS {
            let expected = format!("value {i}");
            let found = r.get_with(table, &i.to_be_bytes(), |v| v == expected.as_bytes())?;
            if found != Some(true) {
                return Err(triebench_kv::KvError::backend(
                    "smoke",
                    format!("key {i} did not read back"),
                ));
            }
        }
        if r.count(table)? != u64::from(2 * KEYS) {
            return Err(triebench_kv::KvError::backend("smoke", "wrong count"));
        }
        Ok(Timings {
            single_commits,
            batch_commit,
            reads: start.elapsed(),
        })
    }
}

fn main() -> ExitCode {
    let base = std::env::temp_dir();
    println!("triebench smoke run in {} ({KEYS} keys)", base.display());
    println!(
        "{:<16} {:>14} {:>14} {:>12}  durability",
        "profile", "1000 commits", "1 commit/1000", "2000 gets"
    );
    let mut failed = false;
    for profile in Profile::enabled() {
        let result = tempfile::Builder::new()
            .prefix("triebench-smoke-")
            .tempdir()
            .map_err(|e| triebench_kv::KvError::io("create temp dir in", &base, e))
            .and_then(|dir| {
                let spec = BackendSpec::new(profile, Some(dir.path().to_path_buf()))?;
                spec.open(&["main"], Smoke)?
            });
        match result {
            Ok(t) => println!(
                "{:<16} {:>12.1}ms {:>12.1}ms {:>10.1}ms  {:?}",
                profile.name(),
                t.single_commits.as_secs_f64() * 1e3,
                t.batch_commit.as_secs_f64() * 1e3,
                t.reads.as_secs_f64() * 1e3,
                profile.durability()
            ),
            Err(e) => {
                failed = true;
                println!("{:<16} error: {e}", profile.name());
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
