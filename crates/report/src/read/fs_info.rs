//! The per-run filesystem sidecar `<criterion-dir>/triebench-runs/<NAME>.json` (written by
//! `triebench capture-fs`, or by scripts), read back for the report, and the run-name rule.
//!
//! Sidecar schema (extra keys are ignored, `statfs` and `latency_us` are optional so scripts can
//! write the rest): `{"name", "dir", "fs_type", "mount_point", "device", "mount_options",
//! "statfs"?: {"magic", "block_size", "total_bytes", "available_bytes"}, "latency_us"?:
//! {"metadata", "read", "write", "sync"}, "flush_extent_us"?}`.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::error::ReportError;
use crate::model::fs::FsInfo;

/// The directory under the criterion dir that holds the sidecars.
pub use triebench_record::layout::SIDECAR_DIR;

/// Checks that a run name is usable as a file name and a criterion baseline
/// (`[A-Za-z0-9._-]+`, not starting with `.`, nor `new`/`base`, the directories criterion
/// keeps its own last runs in).
pub fn validate_run_name(name: &str) -> Result<(), ReportError> {
    triebench_record::layout::validate_run_name(name)
        .map_err(|_| ReportError::InvalidRunName(name.to_string()))
}

/// The sidecar path of run `name`.
pub fn sidecar_path(criterion_dir: &Path, name: &str) -> PathBuf {
    triebench_record::layout::fs_sidecar_path(criterion_dir, name)
}

/// Reads run `name`'s sidecar, `None` when there is none.
pub fn read_sidecar(criterion_dir: &Path, name: &str) -> Result<Option<FsInfo>, ReportError> {
    read_json_sidecar(&sidecar_path(criterion_dir, name))
}

/// Reads the JSON sidecar file `path`, `None` when there is none; an unreadable or unparsable
/// one is a [`ReportError::Sidecar`] naming it.
pub(crate) fn read_json_sidecar<T: DeserializeOwned>(
    path: &Path,
) -> Result<Option<T>, ReportError> {
    if !path.is_file() {
        return Ok(None);
    }
    let bad = |reason: String| ReportError::Sidecar {
        path: path.to_path_buf(),
        reason,
    };
    let text = triebench_record::copy_tree::read_text(path).map_err(|e| bad(e.to_string()))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_must_be_file_names() {
        assert!(validate_run_name("ext4-nvme_1.0").is_ok());
        for bad in ["", "..", "a/b", "a b"] {
            assert!(validate_run_name(bad).is_err(), "{bad}");
        }
    }
}
