//! What Merk's RocksDB directory says after a run: its bytes on disk, and the RocksDB version
//! RocksDB wrote into its own `LOG` when it opened (the library actually loaded, not the
//! version the bindings were made for).

use std::path::Path;

use crate::error::MerkError;

/// Bytes of the regular files under `dir`, recursively (links not followed).
pub fn bytes_under(dir: &Path) -> Result<u64, MerkError> {
    let mut total = 0;
    let entries = std::fs::read_dir(dir).map_err(|e| MerkError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| MerkError::io(dir, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| MerkError::io(&path, e))?;
        if kind.is_dir() {
            total += bytes_under(&path)?;
        } else if kind.is_file() {
            total += entry.metadata().map_err(|e| MerkError::io(&path, e))?.len();
        }
    }
    Ok(total)
}

/// The version in the `RocksDB version: X.Y.Z` line of `dir/LOG`; `None` when there is no
/// log or no such line.
pub fn rocksdb_version(dir: &Path) -> Option<String> {
    let log = std::fs::read_to_string(dir.join("LOG")).ok()?;
    log.lines().find_map(|line| {
        let (_, version) = line.split_once("RocksDB version: ")?;
        let version = version.trim();
        (!version.is_empty()).then(|| version.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::{bytes_under, rocksdb_version};

    #[test]
    fn the_version_is_read_from_the_log_line() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(rocksdb_version(dir.path()), None);
        std::fs::write(
            dir.path().join("LOG"),
            "2026/11/29-06:00:00.000000 7f [db/db_impl/db_impl.cc:1] RocksDB version: 7.8.3\n",
        )
        .unwrap();
        assert_eq!(rocksdb_version(dir.path()).as_deref(), Some("7.8.3"));
    }

    #[test]
    fn bytes_count_files_in_subdirectories() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), [0u8; 10]).unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/b"), [0u8; 5]).unwrap();
        assert_eq!(bytes_under(dir.path()).unwrap(), 15);
    }
}
