//! `triebench smallbank`: Transact's SmallBank end to end on a profile, beside Transact's own
//! MerkleState, every block's root compared.

use std::path::{Path, PathBuf};

use clap::Args;
use triebench_plan::step::smallbank::{smallbank, SmallbankStepOptions};
use triebench_smallbank::{Family, SmallbankOptions, TransactStore};

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct SmallbankArgs {
    /// Transaction family: smallbank (Transact's banking benchmark) or command (Transact's
    /// command family: keys created, then each transaction reads one key and writes it).
    #[arg(long, value_name = "NAME", default_value = "smallbank")]
    pub family: String,
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    pub profile: String,
    /// Directory for the state of file-backed profiles (created if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Accounts the playlist creates first (at least 2).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub accounts: u64,
    /// Transactions after the account creations.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub transactions: u64,
    /// Transactions per block.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub block_size: u64,
    /// The playlist's seed.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Transact's state beside triebench's: `memory` (its MerkleState over its in-memory
    /// BTreeDatabase, in this process), or one of its own durable states, run by
    /// `transact-runner` with its store under DIR/transact: `transact-0.4.7:lmdb`,
    /// `transact-0.4.7:sqlite-wal`, `transact-0.4.7:sqlite-wal-full`,
    /// `transact-0.4.7:sqlite-rollback`, `transact-0.4.7:postgres` (its own server under
    /// DIR/transact unless POSTGRES_URL names one).
    #[arg(long, value_name = "STATE", default_value = "memory")]
    pub transact: String,
    /// The `transact-runner` binary for a durable --transact state (default:
    /// $TRIEBENCH_TRANSACT_RUNNER, else `transact-runner` beside this binary; build it with
    /// `cargo build --release --manifest-path crates/transact-compare/Cargo.toml --target-dir
    /// target`).
    #[arg(long, value_name = "PATH")]
    pub transact_runner: Option<PathBuf>,
    /// With a SQL --transact state: after each prune, delete the rows Transact's prune only
    /// marks (`SqlMerkleState::remove_pruned_entries`, which its `Prune` trait does not call),
    /// inside its commit time.
    #[arg(long)]
    pub transact_remove_pruned: bool,
    /// Write the result as JSON to FILE (and env.json beside it).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write the run's per-block changes as a commit file `triebench root` replays, and the
    /// roots to FILE.roots.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Save the result for run NAME too (`triebench-runs/field/NAME/` in the criterion
    /// directory), so `triebench report` on that run shows it against the published figures.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
}

pub fn run_smallbank(args: SmallbankArgs) -> Result<(), CliError> {
    let transact = transact_store(
        &args.transact,
        args.transact_runner.as_deref(),
        args.transact_remove_pruned,
    )?;
    let run_record = match &args.run {
        Some(run) => {
            triebench_record::layout::validate_run_name(run)?;
            // A durable Transact state's record sits beside the in-memory one's.
            let versus = match &transact {
                TransactStore::Memory => String::new(),
                TransactStore::Runner {
                    implementation,
                    remove_pruned,
                    ..
                } => format!(
                    "-vs-{}{}",
                    implementation.replace(':', "-"),
                    if *remove_pruned { "-removed" } else { "" }
                ),
            };
            Some(
                triebench_record::layout::field_dir(&args.criterion.resolve(), run)
                    .join(format!("{}-{}{versus}.json", args.family, args.profile)),
            )
        }
        None => None,
    };
    let family: Family =
        args.family
            .parse()
            .map_err(|e: triebench_smallbank::SmallbankError| {
                CliError::Usage(format!("--family: {e}"))
            })?;
    smallbank(&SmallbankStepOptions {
        run: SmallbankOptions {
            family,
            profile: args.profile,
            dir: args.dir,
            accounts: args.accounts,
            transactions: args.transactions,
            block_size: args.block_size,
            seed: args.seed,
            trace: args.trace,
            transact,
        },
        out: args.out,
        run_record,
    })?;
    Ok(())
}

/// Where `--transact-runner` is looked for when not given: this variable, then beside this
/// binary.
const RUNNER_VAR: &str = "TRIEBENCH_TRANSACT_RUNNER";

/// `--transact`'s state: `memory`, or a Transact 0.4.7 implementation and the runner that
/// opens it (refused up front if there is none to run).
fn transact_store(
    name: &str,
    runner: Option<&Path>,
    remove_pruned: bool,
) -> Result<TransactStore, CliError> {
    let sql = name.starts_with("transact-0.4.7:sqlite") || name == "transact-0.4.7:postgres";
    if remove_pruned && !sql {
        return Err(CliError::Usage(format!(
            "--transact-remove-pruned is for Transact's SQL states (transact-0.4.7:sqlite-*, \
             transact-0.4.7:postgres), whose prune only marks rows; `{name}` deletes them"
        )));
    }
    if name == "memory" {
        return Ok(TransactStore::Memory);
    }
    if !name.starts_with("transact-0.4.7:") {
        return Err(CliError::Usage(format!(
            "--transact: `{name}` is not `memory` or a Transact 0.4.7 state \
             (transact-0.4.7:lmdb, transact-0.4.7:sqlite-wal, transact-0.4.7:sqlite-wal-full, \
             transact-0.4.7:sqlite-rollback, transact-0.4.7:postgres); Transact 0.3.7 has no \
             executor to run SmallBank through"
        )));
    }
    let runner = match runner {
        Some(path) => path.to_path_buf(),
        None => std::env::var_os(RUNNER_VAR)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                let beside = std::env::current_exe()
                    .ok()?
                    .with_file_name("transact-runner");
                beside.is_file().then_some(beside)
            })
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "--transact {name} runs in transact-runner, which is not beside this binary \
                     and {RUNNER_VAR} is not set: build it with `cargo build --release \
                     --manifest-path crates/transact-compare/Cargo.toml --target-dir target` \
                     or name it with --transact-runner"
                ))
            })?,
    };
    Ok(TransactStore::Runner {
        implementation: name.to_string(),
        runner,
        remove_pruned,
    })
}
