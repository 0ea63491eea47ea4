//! `triebench headline`: every scenario and the suite on every profile, on one filesystem, with
//! samples taken within runs, each profile's storage floor, and the small benchmarks (fsync and
//! SHA-512 floors, a phase span's cost); saved as the run's record, which `report` reads like a
//! criterion baseline (scripts/bench-fs.sh calls this per filesystem).

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::headline::{headline, HeadlineOptions};
use triebench_record::CpuIdle;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct HeadlineArgs {
    /// Directory on the filesystem under test (fresh store directories are made in it).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The run (filesystem) name the results are saved as, as given to
    /// `capture-fs` and `report --runs`.
    #[arg(long, value_name = "NAME")]
    pub run: String,
    /// Backend profiles, comma-separated [default: every profile built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub profiles: Vec<String>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Seconds each profile may take, set-up included; the first round is taken whatever it
    /// costs.
    #[arg(long, value_name = "SECONDS", default_value_t = 4.0)]
    pub budget: f64,
    /// Most rounds per profile: each gives every scenario (and the suite) ten more samples.
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_rounds: usize,
    /// What idle CPUs do while measuring: `poll` holds /dev/cpu_dma_latency at 0 µs (root
    /// only; otherwise the run says why and goes on as `os`), so a server's reply does not pay a
    /// halted CPU's wake-up; `os` leaves them to the OS. Recorded for the report.
    #[arg(long, value_name = "MODE", default_value = "poll")]
    pub cpu_idle: CpuIdle,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

/// Takes the headline of `args.run` and writes its run record
/// (`<criterion-dir>/triebench-runs/records/<run>/headline.json`) and CPU idle record.
pub fn run_headline(args: HeadlineArgs) -> Result<(), CliError> {
    let net = args.net.apply()?;
    Ok(headline(&HeadlineOptions {
        dir: args.dir,
        run: args.run,
        profiles: args.profiles,
        criterion_dir: args.criterion.resolve(),
        budget: args.budget,
        max_rounds: args.max_rounds,
        cpu_idle: args.cpu_idle,
        net: triebench_kv::net_hop::net_record(net),
    })?)
}
