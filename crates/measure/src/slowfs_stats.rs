//! Reading a slowfs mount's live counters: `<mount>/.slowfs-stats`, JSON regenerated on every
//! open (slowfs neither counts nor delays the reads of this file).

use std::fs;
use std::path::Path;

pub use triebench_slowfs::snapshot::STATS_FILE;
pub use triebench_slowfs::{ClassCounts, StatsSnapshot};

use crate::error::MeasureError;

/// Reads the live counters of the slowfs mounted at `mount`.
pub fn read_snapshot(mount: &Path) -> Result<StatsSnapshot, MeasureError> {
    let file = mount.join(STATS_FILE);
    let not_slowfs = |reason: String| MeasureError::NotSlowfs {
        dir: mount.to_path_buf(),
        file: file.clone(),
        reason,
    };
    let text = fs::read_to_string(&file).map_err(|e| not_slowfs(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| not_slowfs(format!("not slowfs counters: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_directory_is_not_slowfs() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_snapshot(dir.path()).unwrap_err();
        assert!(err.to_string().contains("is not a slowfs mount"), "{err}");
    }
}
