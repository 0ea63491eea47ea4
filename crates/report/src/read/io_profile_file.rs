//! The I/O profile `triebench io-profile` leaves beside the run sidecars
//! (`triebench-runs/io-profile.json`), read for the report's lab sections.

use std::path::Path;

use crate::error::ReportError;
use triebench_record::layout::io_profile_path;

use crate::model::io_profile::IoProfileFile;

/// The I/O profile saved beside the run sidecars in `criterion_dir`, if any.
pub fn load_io_profile(criterion_dir: &Path) -> Result<Option<IoProfileFile>, ReportError> {
    let path = io_profile_path(criterion_dir);
    IoProfileFile::load(&path).map_err(|e| ReportError::Sidecar {
        path,
        reason: e.to_string(),
    })
}
