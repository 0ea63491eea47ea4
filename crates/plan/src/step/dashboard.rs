//! The `export` step: a result folder, run folder, criterion directory or baseline as the JSON
//! a CI dashboard reads (github-action-benchmark's or Bencher's).

use std::io::Write;
use std::path::PathBuf;

use triebench_report::atomic_file::write_atomically;
use triebench_report::read::side::read_side;
use triebench_report::render::dashboard_export::{to_json, DashboardFormat};
use triebench_report::ReportError;

use crate::error::PlanError;

/// What to export, in which format, where.
#[derive(Debug, Clone)]
pub struct DashboardOptions {
    /// A result folder (ratios.json), a run folder, a criterion directory, or `criterion:NAME`.
    pub source: String,
    /// The dashboard's format.
    pub format: DashboardFormat,
    /// The file (replaced whole); `None`: standard output.
    pub out: Option<PathBuf>,
    /// Criterion's output directory, for `criterion:NAME`.
    pub criterion_dir: Option<PathBuf>,
}

/// Writes `args.source` as the dashboard's JSON, to a file or standard output.
pub fn dashboard(args: &DashboardOptions) -> Result<(), PlanError> {
    let side = read_side(&args.source, args.criterion_dir.as_deref())?;
    let json = to_json(&side, args.format).map_err(|source| ReportError::Json {
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
                .map_err(|source| PlanError::Write {
                    path: PathBuf::from("(standard output)"),
                    source,
                })?;
        }
    }
    Ok(())
}

/// Writes `text` to `path` whole or not at all.
fn write_text(path: &std::path::Path, text: &str) -> Result<(), PlanError> {
    write_atomically(path, text.as_bytes()).map_err(|source| {
        PlanError::Report(ReportError::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}
