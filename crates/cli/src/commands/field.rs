//! `triebench field`: one of the field's published workloads (Firewood's benchmark set,
//! IAVL-bench's bank shape, Merk's inserts, updates and reads) on a profile, timed per commit.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::field::{field, FieldOptions};

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct FieldArgs {
    /// The workload: firewood-create, firewood-tenkrandom, firewood-zipf, firewood-single,
    /// iavl-bank or merk.
    #[arg(long, value_name = "NAME")]
    pub workload: String,
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    pub profile: String,
    /// Directory for the data of file-backed profiles (created if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Size: Firewood's workloads create N × 10,000 rows (create: N commits; tenkrandom and
    /// zipf: then N commits; single: then N × 1,000); iavl-bank: N versions of 10,000 inserts,
    /// then N of 10,000 updates (the authors' is 100); merk: a tree of N × 10,000 keys, then N
    /// batches of 2,000 inserts, N of 2,000 updates, N of 2,000 reads (the authors' is 100).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub scale: u64,
    /// The seed.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Write the result as JSON to FILE (and env.json beside it).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Save the result for run NAME too (`triebench-runs/field/NAME/` in the criterion
    /// directory), so `triebench report` on that run shows it against the published figures.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
}

pub fn run_field(args: FieldArgs) -> Result<(), CliError> {
    let run_record = match &args.run {
        Some(run) => {
            triebench_record::layout::validate_run_name(run)?;
            Some(
                triebench_record::layout::field_dir(&args.criterion.resolve(), run)
                    .join(format!("{}-{}.json", args.workload, args.profile)),
            )
        }
        None => None,
    };
    field(&FieldOptions {
        workload: args.workload,
        profile: args.profile,
        dir: args.dir,
        scale: args.scale,
        seed: args.seed,
        out: args.out,
        run_record,
    })?;
    Ok(())
}
