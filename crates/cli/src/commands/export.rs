//! `triebench export SOURCE --format github|bencher`: a result folder, run folder, criterion
//! directory or `criterion:NAME` as the JSON github-action-benchmark (`customSmallerIsBetter`)
//! or Bencher (`bencher run --adapter json`) reads; stdout, or `--out FILE`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use triebench_report::atomic_file::write_atomically;
use triebench_report::read::side::read_side;
use triebench_report::render::dashboard_export::{to_json, DashboardFormat};
use triebench_report::ReportError;

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
    let side = read_side(&args.source, args.criterion.criterion_dir.as_deref())?;
    let format = match args.format {
        Format::Github => DashboardFormat::GithubActionBenchmark,
        Format::Bencher => DashboardFormat::Bencher,
    };
    let json = to_json(&side, format).map_err(|source| ReportError::Json {
        what: "dashboard export",
        source,
    })?;
    match &args.out {
        Some(file) => {
            triebench_measure::outputs::writable_file("--out", file)?;
            write_text(file, &json)?;
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(json.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(CliError::Write)?;
        }
    }
    Ok(())
}

/// Writes `text` to `path` whole or not at all.
fn write_text(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    write_atomically(path, text.as_bytes()).map_err(|source| {
        CliError::Report(ReportError::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}
