//! The `smallbank` step: Transact's SmallBank playlist end to end (its scheduler, executor and
//! handler) over triebench-transact-state on a profile, with Transact's MerkleState in memory as
//! the reference; prints progress and a summary table, writes the result as JSON.

use std::path::PathBuf;
use std::time::Instant;

use triebench_record::file::write_json;
use triebench_smallbank::{run, Progress, SideFigures, SmallbankOptions, SmallbankResult};

use crate::error::PlanError;

/// What to run, where, and where the result goes.
#[derive(Debug, Clone)]
pub struct SmallbankStepOptions {
    /// The run itself (profile, directory, accounts, transactions, block size, seed, trace).
    pub run: SmallbankOptions,
    /// Where the JSON result goes (`env.json` is written beside it), when asked for.
    pub out: Option<PathBuf>,
    /// Where the result is saved for a run's report too
    /// ([`triebench_record::layout::field_dir`]), when asked for.
    pub run_record: Option<PathBuf>,
}

/// Seconds between progress lines.
const PROGRESS_EVERY_S: f64 = 2.0;

/// Runs SmallBank on both sides, printing a progress line every few seconds on standard error
/// and the summary on standard output; writes the JSON result (and `env.json` beside it).
pub fn smallbank(options: &SmallbankStepOptions) -> Result<SmallbankResult, PlanError> {
    if let Some(out) = &options.out {
        triebench_measure::outputs::writable_file("--out", out).map_err(PlanError::Measure)?;
    }
    let mut last = Instant::now();
    let mut progress = |p: Progress| {
        if last.elapsed().as_secs_f64() >= PROGRESS_EVERY_S || p.block == p.blocks {
            last = Instant::now();
            eprintln!(
                "smallbank {}: block {}/{} ({:.0} s)",
                options.run.profile, p.block, p.blocks, p.elapsed_s
            );
        }
    };
    let result = run(&options.run, &mut progress)?;
    print!("{}", summary(&result));
    if let Some(path) = &options.run_record {
        write_json(path, "SmallBank result", &result)?;
        eprintln!(
            "smallbank: saved for the run's report in {}",
            path.display()
        );
    }
    if let Some(out) = &options.out {
        write_json(out, "SmallBank result", &result)?;
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            super::grow::write_env(dir)?;
        }
    }
    Ok(result)
}

/// The summary table: one row per side, then the ratio and the run's facts.
pub fn summary(r: &SmallbankResult) -> String {
    let row = |name: &str, s: &SideFigures| {
        format!(
            "| {name} | {:.0} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} |\n",
            s.transactions_per_s,
            s.blocks_per_s,
            s.execute.p50_us,
            s.execute.p99_us,
            s.commit.p50_us,
            s.commit.p99_us
        )
    };
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let mut out = format!(
        "SmallBank on {}: {} accounts + {} transactions in {} blocks of {} (seed {}); {} valid, {} invalid; \
         every block's root equal to Transact's, final {}\n\n",
        r.profile,
        r.accounts,
        r.transactions,
        r.blocks,
        r.block_size,
        r.seed,
        r.valid_transactions,
        r.invalid_transactions,
        r.final_root
    );
    out.push_str("| state | tx/s | blocks/s | execute p50 µs | execute p99 µs | commit p50 µs | commit p99 µs |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    out.push_str(&row(&format!("triebench ({})", r.profile), &r.triebench));
    out.push_str(&row(&transact_label(r), &r.transact));
    out.push_str(&format!(
        "\ntriebench / Transact: tx/s {:.2}x, commit time {:.2}x, execute time {:.2}x; \
         {:.1} leaves changed per block; bytes written per block {:.0} (triebench) / {:.0} \
         (Transact); state on disk {} / {} bytes\n",
        ratio(
            r.triebench.transactions_per_s,
            r.transact.transactions_per_s
        ),
        ratio(r.triebench.commit_s, r.transact.commit_s),
        ratio(r.triebench.execute_s, r.transact.execute_s),
        r.changes_per_block,
        r.triebench_bytes_written_per_block,
        r.transact_bytes_written_per_block,
        r.state_bytes,
        r.transact_state_bytes
    ));
    out
}

/// The table's name for Transact's side: its MerkleState in memory, or the runner's state
/// (and whether its pruned rows were removed).
fn transact_label(r: &SmallbankResult) -> String {
    if r.transact_state == triebench_smallbank::options::MEMORY_NAME {
        "Transact MerkleState (memory)".to_string()
    } else if r.transact_removes_pruned {
        format!("Transact ({}, pruned rows removed)", r.transact_state)
    } else {
        format!("Transact ({})", r.transact_state)
    }
}
