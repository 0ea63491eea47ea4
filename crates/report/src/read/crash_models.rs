//! Reads `crash-models.json` (what `triebench crash-test --model ... --out` wrote) placed beside
//! the run sidecars, `<criterion-dir>/triebench-runs/crash-models.json`, for the report's
//! "Crash states explored" section.

use std::path::Path;

use crate::error::ReportError;
use crate::model::crash_models::{CrashModelsFile, CRASH_MODELS_FILE};
use crate::read::fs_info::SIDECAR_DIR;

/// The crash-state exploration results beside the sidecars of `criterion_dir`, if any.
///
/// # Errors
/// [`ReportError::Sidecar`] when the file exists but cannot be read or does not parse.
pub fn load_crash_models(criterion_dir: &Path) -> Result<Option<CrashModelsFile>, ReportError> {
    let path = criterion_dir.join(SIDECAR_DIR).join(CRASH_MODELS_FILE);
    load_file(&path)
}

/// Reads one `crash-models.json` (a results folder's, say); `None` when there is none.
///
/// # Errors
/// [`ReportError::Sidecar`] when the file exists but cannot be read or does not parse.
pub fn load_file(path: &Path) -> Result<Option<CrashModelsFile>, ReportError> {
    let text = match triebench_record::copy_tree::read_text(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ReportError::Sidecar {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ReportError::Sidecar {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}
