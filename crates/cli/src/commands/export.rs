//! `triebench export SOURCE --format github|bencher`: a result folder, run folder, criterion
//! directory or `criterion:NAME` as the JSON github-action-benchmark (`customSmallerIsBetter`)
//! or Bencher (`bencher run --adapter json`) reads; stdout, or `--out FILE`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use triebench_plan::step::dashboard::{dashboard, DashboardOptions};
use triebench_report::render::dashboard_export::DashboardFormat;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

/// The formats `--format` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// github-action-benchmark's `customSmallerIsBetter` JSON.
    Github,
    /// Bencher Metric Format JSON.
    Bencher,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A result folder (ratios.json), a run folder, a criterion directory, or `criterion:NAME`.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// The dashboard's format.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Write the JSON to FILE (replaced whole) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
}

pub fn run_export(args: ExportArgs) -> Result<(), CliError> {
    Ok(dashboard(&DashboardOptions {
        source: args.source,
        format: match args.format {
            Format::Github => DashboardFormat::GithubActionBenchmark,
            Format::Bencher => DashboardFormat::Bencher,
        },
        out: args.out,
        criterion_dir: args.criterion.criterion_dir,
    })?)
}
