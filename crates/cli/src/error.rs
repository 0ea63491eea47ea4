//! [`CliError`]: everything a `triebench` command can fail with, printed as one line.

use std::io;

use triebench_kv::KvError;
use triebench_measure::MeasureError;
use triebench_record::RecordError;
use triebench_report::ReportError;
use triebench_workloads::commit_file::ReplayError;

/// Everything the CLI reports.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A bad profile, or a backend that failed to open.
    #[error(transparent)]
    Backend(#[from] KvError),
    /// A bad line or a failed commit.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Standard output failed.
    #[error("cannot write output: {0}")]
    Write(#[source] io::Error),
    /// A crash test could not run, or found the store unusable after a crash.
    #[error(transparent)]
    Crash(#[from] triebench_crashlab::CrashError),
    /// A measurement could not be taken or saved.
    #[error(transparent)]
    Measure(MeasureError),
    /// A run record or sidecar could not be written, or a run name is unusable.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Arguments that cannot work together.
    #[error("{0}")]
    Usage(String),
    /// `compare --fail-above`: a benchmark regressed beyond the limit (the table was printed).
    #[error("{0}")]
    Regressed(String),
    /// A run stopped by Ctrl-C or SIGTERM: it wrote what it had (the message says where), and
    /// the command exits with status 130, as a shell reports a process ended by SIGINT.
    #[error("{0}")]
    Interrupted(String),
    /// `triebench bench`'s plan could not be made or carried out, or a run folder written.
    #[error(transparent)]
    Plan(triebench_plan::PlanError),
}

impl From<MeasureError> for CliError {
    /// A measurement's usage and interruption errors are the command's own (Ctrl-C exits 130).
    fn from(e: MeasureError) -> Self {
        match e {
            MeasureError::Usage(msg) => CliError::Usage(msg),
            MeasureError::Interrupted(msg) => CliError::Interrupted(msg),
            other => CliError::Measure(other),
        }
    }
}

impl From<triebench_plan::PlanError> for CliError {
    /// A step's usage and interruption errors are the command's own (Ctrl-C exits 130).
    fn from(e: triebench_plan::PlanError) -> Self {
        use triebench_plan::PlanError;
        match e {
            PlanError::Usage(msg) => CliError::Usage(msg),
            PlanError::Interrupted(msg) => CliError::Interrupted(msg),
            PlanError::Regressed(msg) => CliError::Regressed(msg),
            other => CliError::Plan(other),
        }
    }
}
