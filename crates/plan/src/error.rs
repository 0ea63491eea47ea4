//! [`PlanError`]: what can stop a step or the run plan: its own causes (its arguments, `cargo
//! bench`, the run folders) and, passed through whole, the measuring, recording and reporting
//! libraries' errors.

use std::io;
use std::path::PathBuf;

/// A run plan that cannot be made or carried out.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// An option that cannot be used; the message names it.
    #[error("{0}")]
    Usage(String),
    /// The user stopped the step (Ctrl-C, SIGTERM); the message says what was kept.
    #[error("{0}")]
    Interrupted(String),
    /// `compare --fail-above`: something regressed beyond the limit (the message lists it).
    #[error("{0}")]
    Regressed(String),
    /// An input file could not be opened.
    #[error("cannot open {}: {source}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// A commit file could not be read or replayed (the error names the line).
    #[error(transparent)]
    Replay(#[from] triebench_workloads::commit_file::ReplayError),
    /// A SmallBank run stopped (its message names the block, the profile or the option).
    #[error(transparent)]
    Smallbank(#[from] triebench_smallbank::SmallbankError),
    /// A measurement failed.
    #[error(transparent)]
    Measure(triebench_measure::MeasureError),
    /// An engine failed on a profile, or its roots differ from its reference's
    /// (`triebench engines`).
    #[error("{engine} on {profile}: {source}")]
    Engine {
        /// The engine.
        engine: String,
        /// The profile.
        profile: String,
        /// What went wrong (boxed: the engine's error is large, and rare).
        source: Box<triebench_measure::MeasureError>,
    },
    /// A store could not be opened or used.
    #[error(transparent)]
    Backend(#[from] triebench_kv::KvError),
    /// A record could not be read or written.
    #[error(transparent)]
    Record(#[from] triebench_record::RecordError),
    /// A report could not be made.
    #[error(transparent)]
    Report(#[from] triebench_report::ReportError),
    /// A load run's options are inconsistent.
    #[error(transparent)]
    Load(#[from] triebench_workloads::load::LoadError),
    /// A file a step writes beside its results (`env.json`, a phase breakdown) failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// No temporary directory for a store could be made.
    #[error("cannot create a temporary directory (set TMPDIR or pass --dir): {0}")]
    TempDir(#[source] io::Error),
    /// The flamegraph sampler failed.
    #[error("cannot write the flamegraph {}: {reason}", path.display())]
    Flamegraph {
        /// The SVG asked for.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
    /// A positional argument that is not a usable `NAME=DIR`.
    #[error("`{arg}` is not NAME=DIR: {reason}")]
    BadRun {
        /// The argument as given.
        arg: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The same run name given twice (its results would overwrite each other).
    #[error("run name `{0}` is given twice; each NAME=DIR needs its own name")]
    DuplicateRun(String),
    /// A run's directory that cannot be made or written.
    #[error("run `{name}`: cannot use {} as its directory: {source}", dir.display())]
    RunDir {
        /// The run name.
        name: String,
        /// Its directory.
        dir: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The criterion route needs the checkout holding the benches.
    #[error(
        "the criterion route runs `cargo bench` in the triebench checkout this binary was built \
         from ({}), which is gone; build triebench from a checkout and run it there",
        .0.display()
    )]
    NoCheckout(PathBuf),
    /// `cargo` could not be started.
    #[error("cannot run `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: io::Error,
    },
    /// `cargo bench` failed (its own output says why).
    #[error("`{command}` failed ({status}); its output above says why")]
    Cargo {
        /// The command line.
        command: String,
        /// How it ended.
        status: std::process::ExitStatus,
    },
    /// A bounded run (`grow --memory`) was killed by the kernel's OOM killer in its cgroup:
    /// the line says the bound, the peak and what to give instead.
    #[error("{0}")]
    OomKilled(String),
    /// A bounded run's process failed on its own (its output says why).
    #[error("the bounded run failed ({0}); unless a signal ended it, its output above says why")]
    BoundedRunFailed(std::process::ExitStatus),
    /// A run folder could not be written.
    #[error("cannot export run `{name}` to {}: {source}", path.display())]
    Export {
        /// The run name.
        name: String,
        /// The file or directory being written.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// A run folder's JSON could not be encoded.
    #[error("cannot encode {}: {source}", path.display())]
    Encode {
        /// The file being written.
        path: PathBuf,
        /// The encoder's error.
        source: serde_json::Error,
    },
    /// Nothing of a run is in the criterion directory.
    #[error(
        "{} holds nothing of run `{name}` (no baseline, no sidecar): was it measured with \
         this --criterion-dir?",
        criterion_dir.display()
    )]
    NothingToExport {
        /// The run name.
        name: String,
        /// The criterion directory searched.
        criterion_dir: PathBuf,
    },
}

impl From<triebench_measure::MeasureError> for PlanError {
    /// A measurement's usage and interruption errors are the step's own (Ctrl-C exits 130).
    fn from(e: triebench_measure::MeasureError) -> Self {
        use triebench_measure::MeasureError;
        match e {
            MeasureError::Usage(msg) => PlanError::Usage(msg),
            MeasureError::Interrupted(msg) => PlanError::Interrupted(msg),
            other => PlanError::Measure(other),
        }
    }
}
