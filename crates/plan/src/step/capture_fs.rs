//! The `capture-fs` step: which filesystem a run's directory is on and what it charges per
//! operation class, recorded as the run's sidecar.

use std::path::PathBuf;

use crate::error::PlanError;

/// What to capture.
#[derive(Debug, Clone)]
pub struct CaptureFsOptions {
    /// The run name (the criterion baseline it will be saved as).
    pub name: String,
    /// The directory the run will use as TMPDIR.
    pub dir: PathBuf,
    /// Criterion's output directory, where the sidecar goes.
    pub criterion_dir: PathBuf,
    /// Whether to measure the cost per operation class (about a second on a local disk).
    pub latency: bool,
}

/// Captures the filesystem of `o.dir` as run `o.name`'s sidecar and prints what it found.
pub fn capture_fs(o: &CaptureFsOptions) -> Result<(), PlanError> {
    // The run's directory, made as `headline` and `phases` make it, so that the filesystem
    // recorded is the one they will measure.
    triebench_measure::make_dir::make_dir("DIR", &o.dir)?;
    let (sidecar, info) =
        triebench_measure::capture_fs(&o.name, &o.dir, &o.criterion_dir, o.latency)?;
    println!(
        "run `{}`: {} is on {} ({}, mounted at {}); recorded in {}",
        o.name,
        o.dir.display(),
        info.device,
        info.fs_type,
        info.mount_point,
        sidecar.display()
    );
    if let Some(lat) = info.latency_us {
        println!(
            "run `{}`: median µs per operation: metadata {:.1}, read {:.1}, write {:.1}, sync {:.1}",
            o.name, lat.metadata, lat.read, lat.write, lat.sync
        );
    }
    Ok(())
}
