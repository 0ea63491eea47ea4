//! `triebench smallbank`: Transact's SmallBank end to end on a profile, beside Transact's own
//! MerkleState, every block's root compared.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::smallbank::{smallbank, SmallbankStepOptions};
use triebench_smallbank::{Family, SmallbankOptions};

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
    let run_record = match &args.run {
        Some(run) => {
            triebench_record::layout::validate_run_name(run)?;
            Some(
                triebench_record::layout::field_dir(&args.criterion.resolve(), run)
                    .join(format!("{}-{}.json", args.family, args.profile)),
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
        },
        out: args.out,
        run_record,
    })?;
    Ok(())
}
