//! Writing a result file whole or not at all: the new contents go to a temporary file beside it,
//! which replaces the old one by `rename` only once written. A full disk or an interrupted run
//! then leaves the previous file as it was (a `crash.json` that runs add up to, a `load.json`
//! another run is compared with) instead of a truncated one.

use std::io::Write;
use std::path::Path;

use crate::error::ReportError;

/// Writes `bytes` to `path`, replacing it atomically; on error `path` is untouched and the
/// temporary file is removed. The file is readable by everyone (mode 0644 on Unix), as a file
/// written with `std::fs::write` under the usual umask would be.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".triebench-write-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// [`write_atomically`] for the report's own files, a failure being [`ReportError::Write`]
/// naming `path`.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), ReportError> {
    write_atomically(path, text.as_bytes()).map_err(|e| ReportError::write(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        // The target is a directory: the rename fails after the temporary file was written.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), b"kept").unwrap();
        assert!(write_atomically(&path, b"new").is_err());
        assert_eq!(std::fs::read(path.join("inside")).unwrap(), b"kept");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
