//! `--flamegraph FILE` of the long-running steps: samples the process with `pprof` (in
//! process, no system profiler) while the command's work runs, and writes an SVG flamegraph.

use std::fs::File;
use std::path::Path;

use crate::error::PlanError;

/// Samples per second: a prime, so sampling does not lock step with periodic work.
const FREQUENCY: i32 = 997;

/// Runs `work`, sampling it into a flamegraph at `out` when given.
pub fn profiled<T, E: From<PlanError>>(
    out: Option<&Path>,
    work: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let Some(path) = out else {
        return work();
    };
    let failed = |reason: String| {
        E::from(PlanError::Flamegraph {
            path: path.to_path_buf(),
            reason,
        })
    };
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(FREQUENCY)
        .blocklist(&["libc", "libgcc", "pthread", "vdso"])
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let value = work()?;
    let report = guard.report().build().map_err(|e| failed(e.to_string()))?;
    let file = File::create(path).map_err(|e| failed(e.to_string()))?;
    report.flamegraph(file).map_err(|e| failed(e.to_string()))?;
    eprintln!("flamegraph written to {}", path.display());
    Ok(value)
}
