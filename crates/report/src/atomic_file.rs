//! Writing a result file whole or not at all: the new contents go to a temporary file beside it,
//! which replaces the old one by `rename` only once written. A full disk or an interrupted run
//! then leaves the previous file as it was (a `crash.json` that runs add up to, a `load.json`
//! another run is compared with) instead of a truncated one.

use std::path::Path;

use crate::error::ReportError;

pub use triebench_record::file::write_atomically;

/// [`write_atomically`] for the report's own files, a failure being [`ReportError::Write`]
/// naming `path`.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), ReportError> {
    write_atomically(path, text.as_bytes()).map_err(|e| ReportError::write(path, e))
}
