//! Mapping rusqlite's errors onto [`KvError`], naming the database file, so every caller reports
//! a full disk, a locked or damaged database the same way and says what to do about it.

use std::io;
use std::path::Path;

use rusqlite::ErrorCode;

use super::mode::BUSY_TIMEOUT;
use crate::error::KvError;

/// The backend name in [`KvError::Backend`] and [`KvError::Corrupt`].
pub(super) const BACKEND: &str = "sqlite";

/// Maps a rusqlite error onto the storage errors, naming the database file.
pub(super) fn sql_err(path: &Path, err: rusqlite::Error) -> KvError {
    let code = match &err {
        rusqlite::Error::SqliteFailure(failure, _) => Some(failure.code),
        _ => None,
    };
    match code {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => KvError::Corrupt {
            backend: BACKEND,
            path: path.to_path_buf(),
            detail: err.to_string(),
        },
        Some(ErrorCode::CannotOpen) => {
            KvError::io("open database", path, io::Error::other(err.to_string()))
        }
        Some(ErrorCode::DiskFull) => {
            KvError::disk_full(path.parent().unwrap_or(Path::new(".")), err)
        }
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => KvError::io(
            "write database",
            path,
            io::Error::new(io::ErrorKind::PermissionDenied, err.to_string()),
        ),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => KvError::backend(
            BACKEND,
            format!(
                "{err}: {} stayed locked longer than the {} s busy timeout; another process may \
                 be writing it, or (sqlite-rollback) a scan's visitor is blocking a commit",
                path.display(),
                BUSY_TIMEOUT.as_secs()
            ),
        ),
        _ => KvError::backend(BACKEND, format!("{err} ({})", path.display())),
    }
}
