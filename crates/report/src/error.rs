//! The errors of `triebench report`, each saying what to do.

use std::path::PathBuf;

/// Everything that stops a report from being written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The criterion output directory does not exist.
    #[error(
        "criterion output directory {} not found: run the benches first \
         (`cargo bench -- --save-baseline NAME`), or pass --criterion-dir DIR \
         (default: $CRITERION_HOME, else criterion/ in the cargo target directory)",
        .0.display()
    )]
    CriterionDirMissing(PathBuf),

    /// The requested baseline run was never saved.
    #[error(
        "baseline `{c_name}` not found under {}: saved baselines are [{}]; \
         save one with `cargo bench -- --save-baseline {c_name}` or pick an existing one",
        dir.display(),
        available.join(", "), c_name = triebench_record::excerpt::excerpt(name))]
    BaselineNotFound {
        /// The requested name.
        name: String,
        /// The criterion directory searched.
        dir: PathBuf,
        /// Every baseline name found there.
        available: Vec<String>,
    },

    /// A criterion file could not be parsed (criterion's layout changed, or the file is damaged).
    #[error(
        "cannot read criterion file {}: {c_reason}; re-run that benchmark, or delete its \
         directory if it is stale",
        path.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    CriterionFile {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },

    /// A `load.json` could not be read, or is of a layout this version does not know.
    #[error(
        "cannot read load file {}: {c_reason}; it is written by `triebench load --out DIR` \
         (pass that DIR or its load.json)",
        path.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    LoadFile {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },

    /// A filesystem sidecar (`triebench-runs/NAME.json`) could not be parsed.
    #[error(
        "cannot read filesystem sidecar {}: {c_reason}; re-create it with \
         `triebench capture-fs NAME DIR --criterion-dir D`",
        path.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    Sidecar {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },

    /// A run folder (`triebench export-run`) that cannot be merged.
    #[error(
        "cannot use run folder {}: {c_reason}; a run folder holds manifest.json, env.json and \
         criterion/ as `triebench export-run` writes them",
        path.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    RunFolder {
        /// The folder or file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },

    /// A run name that cannot be used as a file name.
    #[error(
        "invalid run name `{c0}`: use letters, digits, `.`, `_` and `-` only, not starting with \
         `.`, and not `new` or `base` (criterion's own)", c0 = triebench_record::excerpt::excerpt(.0))]
    InvalidRunName(String),

    /// A run record or a sidecar could not be read, or breaks its format's rules (the message
    /// names the file).
    #[error(transparent)]
    Record(#[from] triebench_record::RecordError),

    /// A sidecar (phase file, I/O profile) could not be read or written.
    #[error("{}: {c_reason}", path.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },

    /// An output folder a report may not replace (one of its inputs, or a folder it did not
    /// write); nothing was written.
    #[error("refusing --out {}: {c_reason}", out.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    OutRefused {
        /// The output folder asked for.
        out: PathBuf,
        /// Why it is refused, and what to do.
        reason: String,
    },

    /// Writing an output file failed.
    #[error("cannot write {}: {source}; check that the directory is writable and has space", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },

    /// Drawing a plot failed.
    #[error("cannot draw plot {}: {c_reason}", path.display(), c_reason = triebench_record::excerpt::clip_quoted(&reason.to_string()).into_owned())]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// What plotters reported.
        reason: String,
    },

    /// Serialising JSON failed (should not happen with the types used).
    #[error("cannot serialise {what} to JSON: {source}")]
    Json {
        /// What was being written.
        what: &'static str,
        /// The serde error.
        source: serde_json::Error,
    },
}

impl ReportError {
    /// A write error for `path`.
    pub(crate) fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ReportError::Write {
            path: path.into(),
            source,
        }
    }
}

/// Maps a plotters error to [`ReportError::Plot`] for `path`, with plotters' message (its
/// `Display`, which names the OS error when the file cannot be written).
pub(crate) fn plot_error<E: std::fmt::Display>(
    path: &std::path::Path,
) -> impl Fn(E) -> ReportError + '_ {
    move |e| ReportError::Plot {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}
