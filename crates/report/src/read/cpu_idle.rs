//! The CPU idle record a headline leaves beside its results
//! (`<criterion-dir>/triebench-runs/headline/<run>.json`), read for the report's context.

use std::path::Path;

use triebench_record::layout::cpu_idle_path;

use crate::error::ReportError;
use crate::model::cpu_idle::CpuIdleRecord;
use crate::read::fs_info::read_json_sidecar;

/// Reads run `run`'s record, `None` when the run has none (criterion's own runs, older folders).
pub fn load(criterion_dir: &Path, run: &str) -> Result<Option<CpuIdleRecord>, ReportError> {
    read_json_sidecar(&cpu_idle_path(criterion_dir, run))
}
