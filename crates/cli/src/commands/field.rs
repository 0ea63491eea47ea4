//! `triebench field`: one of the field's published workloads (Firewood's benchmark set,
//! IAVL-bench's bank shape, Merk's inserts, updates and reads) on a profile, timed per commit;
//! for `merk`, Merk's own code on the same commits in the same run when `merk-runner` is found.

use std::path::{Path, PathBuf};

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
    /// With --workload merk: the `merk-runner` binary that runs Merk 2.0.1's own code on the
    /// same commits after ours, its RocksDB store in DIR/merk (default: $TRIEBENCH_MERK_RUNNER,
    /// else `merk-runner` beside this binary; without either, only ours runs and a line says
    /// so). Build it from crates/merk-compare (a nightly Rust, the system's RocksDB): `cd
    /// crates/merk-compare && cargo build --release --target-dir ../../target`.
    #[arg(long, value_name = "PATH")]
    pub merk_runner: Option<PathBuf>,
    /// Save the result for run NAME too (`triebench-runs/field/NAME/` in the criterion
    /// directory), so `triebench report` on that run shows it against the published figures.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
}

pub fn run_field(args: FieldArgs) -> Result<(), CliError> {
    let merk_runner = merk_runner(&args.workload, args.merk_runner.as_deref())?;
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
        merk_runner,
    })?;
    Ok(())
}

/// Where the `merk-runner` is looked for when --merk-runner is not given: this variable, then
/// beside this binary.
const MERK_RUNNER_VAR: &str = "TRIEBENCH_MERK_RUNNER";

/// The runner of Merk's side: the one named (--merk-runner, else $TRIEBENCH_MERK_RUNNER; a
/// path that is no file is refused), else `merk-runner` beside this binary when there is one;
/// for `merk` without any, a line on standard error says Merk's own code does not run. Other
/// workloads look for none.
fn merk_runner(workload: &str, flag: Option<&Path>) -> Result<Option<PathBuf>, CliError> {
    if workload != "merk" {
        // The field step refuses a runner for another workload.
        return Ok(flag.map(Path::to_path_buf));
    }
    let named = flag
        .map(|p| (p.to_path_buf(), "--merk-runner"))
        .or_else(|| {
            std::env::var_os(MERK_RUNNER_VAR)
                .filter(|v| !v.is_empty())
                .map(|v| (PathBuf::from(v), MERK_RUNNER_VAR))
        });
    if let Some((path, from)) = named {
        if !path.is_file() {
            return Err(CliError::Usage(format!(
                "{from}: {} is not a file; build merk-runner with `cd crates/merk-compare && \
                 cargo build --release --target-dir ../../target` and name \
                 target/release/merk-runner",
                path.display()
            )));
        }
        return Ok(Some(path));
    }
    let beside = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name("merk-runner"))
        .filter(|p| p.is_file());
    if beside.is_none() {
        eprintln!(
            "field merk: Merk's own code does not run in this run (no merk-runner beside this \
             binary, {MERK_RUNNER_VAR} unset): ours only, beside Merk's published figures; \
             build it with `cd crates/merk-compare && cargo build --release --target-dir \
             ../../target`"
        );
    }
    Ok(beside)
}
