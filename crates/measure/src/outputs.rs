//! Checks that a command's outputs can be written, made before it measures: a run of minutes
//! that ends in "cannot write" has lost its results.

use std::path::Path;

use crate::error::MeasureError;
use crate::make_dir::make_dir;

/// Creates `dir` if needed ([`make_dir`]) and writes (then removes) a temporary file in it;
/// `flag` names the option in the error.
pub fn writable_dir(flag: &str, dir: &Path) -> Result<(), MeasureError> {
    make_dir(flag, dir)?;
    tempfile::tempfile_in(dir).map(drop).map_err(|e| {
        MeasureError::Usage(format!("{flag} {}: cannot write there: {e}", dir.display()))
    })
}

/// Checks that the file `path` can be created or replaced: it is not a directory and its
/// directory is writable (created if needed).
pub fn writable_file(flag: &str, path: &Path) -> Result<(), MeasureError> {
    if path.is_dir() {
        return Err(MeasureError::Usage(format!(
            "{flag} {}: is a directory, not a file",
            path.display()
        )));
    }
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => writable_dir(flag, parent),
        _ => writable_dir(flag, Path::new(".")),
    }
}
