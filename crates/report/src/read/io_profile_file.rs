//! The I/O profile `triebench io-profile` leaves beside the run sidecars
//! (`triebench-runs/io-profile.json`), read for the report's lab sections.

use std::path::Path;

use crate::error::ReportError;
use crate::model::io_profile::{IoProfileFile, FILE_NAME};
use crate::read::fs_info::SIDECAR_DIR;

/// The I/O profile saved beside the run sidecars in `criterion_dir`, if any.
pub fn load_io_profile(criterion_dir: &Path) -> Result<Option<IoProfileFile>, ReportError> {
    let path = criterion_dir.join(SIDECAR_DIR).join(FILE_NAME);
    IoProfileFile::load(&path).map_err(|e| ReportError::Sidecar {
        path,
        reason: e.to_string(),
    })
}
