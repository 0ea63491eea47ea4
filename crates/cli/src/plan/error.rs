//! [`PlanError`]: what can go wrong in the run plan itself (its arguments, `cargo bench`, the
//! run folders), beside what the commands it calls report as [`crate::error::CliError`].

use std::io;
use std::path::PathBuf;

/// A run plan that cannot be made or carried out.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
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
