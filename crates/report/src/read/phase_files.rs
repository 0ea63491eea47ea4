//! The phase files `triebench phases` leaves beside the run sidecars
//! (`triebench-runs/phases/<run>.json`), read for the report's phase section.

use std::path::Path;

use crate::error::ReportError;
use crate::model::phases::PhaseRunFile;

/// Where the phase file of `run` lives under `criterion_dir`:
/// `triebench-runs/phases/<run>.json`.
pub use triebench_record::layout::phases_path as path;

/// The phase files of `runs` saved in `criterion_dir` (runs without one are left out).
pub fn load_all(criterion_dir: &Path, runs: &[String]) -> Result<Vec<PhaseRunFile>, ReportError> {
    let mut out = Vec::new();
    for run in runs {
        if let Some(file) = PhaseRunFile::load(&path(criterion_dir, run))? {
            out.push(file);
        }
    }
    Ok(out)
}
