//! Reads `crash.json` (what `triebench crash-test --out` wrote) placed beside the run sidecars,
//! `<criterion-dir>/triebench-runs/crash.json`, for the report's "what each profile loses"
//! section.

use std::path::Path;

use crate::error::ReportError;
use crate::model::crash::{CrashFile, CRASH_FILE};
use crate::read::fs_info::SIDECAR_DIR;

/// The crash-test results beside the sidecars of `criterion_dir`, if there are any.
///
/// # Errors
/// [`ReportError::Sidecar`] when the file exists but does not parse.
pub fn load_crash(criterion_dir: &Path) -> Result<Option<CrashFile>, ReportError> {
    let path = criterion_dir.join(SIDECAR_DIR).join(CRASH_FILE);
    let text = match triebench_record::copy_tree::read_text(&path) {
        Ok(text) => text,
        Err(_) => return Ok(None),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ReportError::Sidecar {
            path,
            reason: e.to_string(),
        })
}
