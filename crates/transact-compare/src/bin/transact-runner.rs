//! `transact-runner`: runs Transact's scenarios on a Transact implementation and prints the
//! time, for the root workspace's `benches/transact.rs` (which cannot link Transact: see the
//! crate docs).
//!
//! - `transact-runner list`: one line per implementation available here:
//!   `<id> <fsyncs-per-commit: yes|no>`.
//! - `transact-runner time <id> <scenario|suite> <iterations>`: runs the scenario (or all ten,
//!   each on its own fresh store) `iterations` times, each store in a fresh directory under
//!   `TMPDIR`; prints the total nanoseconds spent in the scenarios (opening and removing
//!   stores not counted), like the `iter_custom` closures of `benches/merkle.rs`.
//!
//! - `transact-runner smallbank <request>`: SmallBank through Transact 0.4.7's executor on one
//!   of its states, for `triebench smallbank --transact <implementation>`: the request is JSON
//!   (`triebench_smallbank::RunnerRequest`); a block is run per `next` line on standard input
//!   and a JSON reply written per block on standard output (`runner_protocol`).
//!
//! Errors go to stderr with exit status 1.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use triebench_smallbank::runner_protocol::SUBCOMMAND;
use triebench_smallbank::{serve, RunnerRequest, Served};
use triebench_transact::{scenarios, Implementation, TransactError, IMPLEMENTATIONS};
use triebench_workloads::{Scenario, SCENARIOS};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), TransactError> {
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["list"] => {
            for i in IMPLEMENTATIONS.iter().filter(|i| i.available()) {
                let fsync = if i.fsyncs_per_commit() { "yes" } else { "no" };
                println!("{} {fsync}", i.id());
            }
            Ok(())
        }
        ["time", id, scenario, iterations] => {
            let implementation: Implementation = id.parse()?;
            let scenarios: Vec<Scenario> = if *scenario == "suite" {
                SCENARIOS.to_vec()
            } else {
                vec![scenario.parse().map_err(|_| TransactError::Unknown {
                    kind: "scenario",
                    name: scenario.to_string(),
                    valid: format!("suite, {}", Scenario::valid_names()),
                })?]
            };
            let iterations: u64 = iterations.parse().map_err(|_| TransactError::Unknown {
                kind: "iteration count",
                name: iterations.to_string(),
                valid: "a whole number".into(),
            })?;
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                for &s in &scenarios {
                    total += time_one(implementation, s)?;
                }
            }
            println!("{}", total.as_nanos());
            Ok(())
        }
        [SUBCOMMAND, request] => smallbank(&RunnerRequest::from_json(request)?),
        _ => Err(TransactError::Unknown {
            kind: "command",
            name: args.join(" "),
            valid: format!(
                "`list`, `time <implementation> <scenario|suite> <iterations>`, \
                 `{SUBCOMMAND} <request>`"
            ),
        }),
    }
}

/// Runs SmallBank's blocks on the request's Transact 0.4.7 state as standard input asks for
/// them (`triebench smallbank --transact`; the protocol is triebench_smallbank's
/// `runner_protocol`).
fn smallbank(request: &RunnerRequest) -> Result<(), TransactError> {
    let implementation: Implementation = request.implementation.parse()?;
    let mut open = implementation.open(&request.dir)?;
    let Some(native) = open.full047.take() else {
        return Err(TransactError::Unknown {
            kind: "SmallBank state",
            name: implementation.id(),
            valid: "a transact-0.4.7 implementation: SmallBank runs through Transact 0.4.7's \
                    executor"
                .into(),
        });
    };
    let remove_pruned = match (request.remove_pruned, native.remove_pruned) {
        (false, _) => None,
        (true, Some(remove)) => Some(remove),
        (true, None) => {
            return Err(TransactError::Unknown {
                kind: "state to remove pruned rows from",
                name: implementation.id(),
                valid: "a transact-0.4.7 SQL state (sqlite-*, postgres): the key-value \
                        MerkleState's prune deletes already"
                    .into(),
            })
        }
    };
    let served = Served {
        state: native.state,
        remove_pruned,
        initial_root: open.state.initial_root().to_string(),
        fsyncs_per_commit: implementation.fsyncs_per_commit(),
    };
    serve(
        served,
        request,
        std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
    )?;
    Ok(())
}

/// Times one scenario on a fresh store in a fresh directory under `TMPDIR`.
fn time_one(implementation: Implementation, scenario: Scenario) -> Result<Duration, TransactError> {
    let dir = tempfile::Builder::new()
        .prefix("triebench-transact-")
        .tempdir()?;
    let open = implementation.open(dir.path())?;
    let start = Instant::now();
    scenarios::run(scenario, open.state.as_ref())?;
    let elapsed = start.elapsed();
    drop(open);
    Ok(elapsed)
}
