//! Criterion benches of Hyperledger Transact's own merkle states (feature `transact`), beside
//! ours in `benches/merkle.rs`: the same ten scenarios and the suite, the same data.
//!
//! Ids: `scenario/<name>/<implementation>:<profile>`, e.g. `scenario/suite/transact-0.4.7:lmdb`
//! (ours stay `scenario/<name>/<profile>`). Each iteration runs on a fresh store in a fresh
//! directory under `TMPDIR`; opening and removing it is not timed.
//!
//! Transact cannot be linked into this workspace (its SQLite crates and ours claim the same
//! native library; see crates/transact-compare), so this bench builds the `transact-runner`
//! binary of crates/transact-compare with cargo and asks it for the time of N iterations:
//! criterion's `iter_custom` with the timing done inside the runner, around the scenarios only.
//! `TRIEBENCH_TRANSACT_RUNNER=path` uses a runner built elsewhere. `TRIEBENCH_PROFILES` narrows
//! by the profile part (`lmdb`, `sqlite-wal`, ...); `TRIEBENCH_FILTER` and `TRIEBENCH_SAMPLES` as
//! in the other benches. `transact-0.4.7:postgres` runs on the server `POSTGRES_URL` names, else
//! (feature `postgres-db`) on a managed server this bench starts in a directory under `TMPDIR`,
//! so its data and WAL are on the filesystem under test, as for our `postgres` profile; each run
//! is a tree of its own in that server.

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, Criterion, SamplingMode};
use support::{announce_filesystem, configure, selected, Scale};
use triebench_kv::Profile;
use triebench_workloads::SCENARIOS;

/// The runner binary: `TRIEBENCH_TRANSACT_RUNNER` when set (scripts/test.sh passes the dev
/// build it tested), else built now in release under the workspace's target directory, as
/// measuring needs it.
fn runner() -> PathBuf {
    if let Some(path) = std::env::var_os("TRIEBENCH_TRANSACT_RUNNER") {
        return PathBuf::from(path);
    }
    // The workspace root: this bench's package is crates/bench.
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| root.join(t))
        .unwrap_or_else(|| root.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .arg("build")
        .arg("--manifest-path")
        .arg(root.join("crates/transact-compare/Cargo.toml"))
        .arg("--bin")
        .arg("transact-runner")
        .arg("--target-dir")
        .arg(&target)
        .arg("--release");
    eprintln!("triebench: building transact-runner (crates/transact-compare)");
    match build.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!(
            "building transact-runner failed ({s}); see scripts/setup.sh for protoc"
        )),
        Err(e) => fail(&format!("cannot run cargo to build transact-runner: {e}")),
    }
    target.join("release").join("transact-runner")
}

fn fail(message: &str) -> ! {
    eprintln!("triebench: {message}");
    std::process::exit(2);
}

/// The `transact-runner` binary, plus the PostgreSQL server it is given.
struct Runner {
    path: PathBuf,
    postgres_url: Option<String>,
}

/// A managed PostgreSQL server for `transact-0.4.7:postgres` when `POSTGRES_URL` names none (the
/// server, then its directory: dropped in that order). Without PostgreSQL installed, that
/// implementation is left out with a note.
#[cfg(feature = "postgres-db")]
fn managed_postgres() -> Option<(triebench_kv::postgres::PgServer, tempfile::TempDir)> {
    if std::env::var_os("POSTGRES_URL").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let started = tempfile::Builder::new()
        .prefix("triebench-pg-")
        .tempdir()
        .map_err(|e| e.to_string())
        .and_then(
            |dir| match triebench_kv::postgres::PgServer::start(dir.path()) {
                Ok(server) => Ok((server, dir)),
                Err(e) => Err(e.to_string()),
            },
        );
    match started {
        Ok(both) => Some(both),
        Err(e) => {
            eprintln!("triebench: transact-0.4.7:postgres left out: {e}");
            None
        }
    }
}

/// Runs the runner with `args`; its standard output, trimmed.
fn ask(runner: &Runner, args: &[&str]) -> String {
    let mut command = Command::new(&runner.path);
    if let Some(url) = &runner.postgres_url {
        command.env("POSTGRES_URL", url);
    }
    match command.args(args).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => fail(&format!(
            "transact-runner {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => fail(&format!("cannot run {}: {e}", runner.path.display())),
    }
}

/// The implementations available here, narrowed by `TRIEBENCH_PROFILES`.
fn implementations(runner: &Runner) -> Vec<String> {
    let wanted: Option<Vec<String>> = std::env::var("TRIEBENCH_PROFILES")
        .ok()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(|p| p.trim().to_string()).collect());
    ask(runner, &["list"])
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .filter(|id| {
            let profile = id.split_once(':').map_or(id.as_str(), |(_, p)| p);
            wanted
                .as_ref()
                .is_none_or(|w| w.iter().any(|p| p == profile))
        })
        .collect()
}

fn bench_transact(c: &mut Criterion) {
    announce_filesystem();
    let scale = Scale::from_env();
    let mut groups: Vec<String> = SCENARIOS.iter().map(|s| s.name().to_string()).collect();
    groups.push("suite".to_string());
    // Cheap first: the runner is built only when the filter can select one of its benches.
    let might_select = groups
        .iter()
        .any(|g| selected(&format!("scenario/{g}/transact-")))
        || std::env::var("TRIEBENCH_FILTER").is_ok_and(|f| f.contains("transact"));
    if !might_select {
        return;
    }
    let path = runner();
    // Listed with PostgreSQL when a server can be had (POSTGRES_URL, or a managed one started
    // below only if a PostgreSQL benchmark is selected); the placeholder only makes it listed.
    let listing_url = std::env::var("POSTGRES_URL")
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| cfg!(feature = "postgres-db").then(|| "host=/nonexistent".to_string()));
    let listed = implementations(&Runner {
        path: path.clone(),
        postgres_url: listing_url,
    });
    // Each benchmark by its full id, so that a filter naming some implementations
    // (`^scenario/suite/transact-0\.3\.7:lmdb$`) selects just those.
    let wanted: Vec<(&String, Vec<&String>)> = groups
        .iter()
        .map(|g| {
            let ids = listed
                .iter()
                .filter(|id| selected(&format!("scenario/{g}/{id}")))
                .collect();
            (g, ids)
        })
        .filter(|(_, ids): &(&String, Vec<&String>)| !ids.is_empty())
        .collect();
    if wanted.is_empty() {
        return;
    }
    let needs_postgres = wanted
        .iter()
        .any(|(_, ids)| ids.iter().any(|id| id.ends_with(":postgres")));
    #[cfg(feature = "postgres-db")]
    let postgres = needs_postgres.then(managed_postgres).flatten();
    #[cfg(feature = "postgres-db")]
    let postgres_url = postgres.as_ref().map(|(server, _)| server.url());
    #[cfg(not(feature = "postgres-db"))]
    let postgres_url = {
        let _ = needs_postgres;
        None
    };
    let mut wanted = wanted;
    if postgres_url.is_none() && std::env::var("POSTGRES_URL").is_err() {
        // No server could be had (managed_postgres said why): PostgreSQL is left out.
        for (_, ids) in &mut wanted {
            ids.retain(|id| !id.ends_with(":postgres"));
        }
    }
    let runner = Runner { path, postgres_url };
    for (name, ids) in wanted {
        let mut group = c.benchmark_group(format!("scenario/{name}"));
        for id in ids {
            let profile = id
                .split_once(':')
                .and_then(|(_, p)| p.parse::<Profile>().ok());
            configure(&mut group, scale, profile);
            // One iteration per sample: a Transact suite takes seconds to tens of seconds, and
            // criterion's linear sampling would run 55 of them for 10 samples.
            group.sampling_mode(SamplingMode::Flat);
            group.bench_function(id.as_str(), |b| {
                b.iter_custom(|iters| {
                    let nanos = ask(&runner, &["time", id, name, &iters.to_string()]);
                    match nanos.parse::<u64>() {
                        Ok(n) => Duration::from_nanos(n),
                        Err(_) => fail(&format!(
                            "transact-runner printed `{nanos}`, not nanoseconds"
                        )),
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_transact);
/// `criterion_main!` after `support::begin` (criterion's plot font, idle CPUs held as
/// `TRIEBENCH_CPU_IDLE` asks).
fn main() {
    let _bench = support::begin();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
