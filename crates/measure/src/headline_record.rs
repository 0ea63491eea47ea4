//! The headline's run record: what `triebench headline` measured on one filesystem, written as
//! `<criterion-dir>/triebench-runs/records/<run>/headline.json` for the report to read. The
//! command rewrites it after each profile, so a run that fails part-way leaves what it took.

use std::path::{Path, PathBuf};

use triebench_record::time as naming;
use triebench_record::{CpuIdleRecord, Environment, RunRecord};

use crate::error::MeasureError;
use crate::fs_capture::fs_info_for_dir;
use crate::versions;

/// The command name the record is filed under.
pub const COMMAND: &str = "headline";

/// An empty headline record of run `run` measuring `dir`: the host, the versions measured
/// with, the filesystem of `dir` (when it can be told) and what idle CPUs do.
pub fn new_record(run: &str, dir: &Path, cpu_idle: &CpuIdleRecord) -> RunRecord {
    let environment = Environment {
        host: triebench_record::host::capture_host(),
        versions: versions::capture(),
    };
    let mut record = RunRecord::new(run, COMMAND, naming::now(), environment);
    record.filesystem = fs_info_for_dir(run, dir).ok();
    record.cpu_idle = Some(cpu_idle.clone());
    record
}

/// Writes `record` under `criterion_dir`; returns its path.
pub fn write(record: &RunRecord, criterion_dir: &Path) -> Result<PathBuf, MeasureError> {
    Ok(record.write(criterion_dir)?)
}
