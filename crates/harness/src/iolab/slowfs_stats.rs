//! Reading a slowfs mount's live counters: `<mount>/.slowfs-stats`, JSON regenerated on every
//! open (slowfs neither counts nor delays the reads of this file).

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::class::PerClass;
use super::error::IoLabError;

/// The virtual counters file at the root of every slowfs mount.
pub const STATS_FILE: &str = ".slowfs-stats";

/// Operations and bytes of one class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCount {
    /// Operations that reached the filesystem.
    pub ops: u64,
    /// Bytes moved (reads and writes only).
    pub bytes: u64,
}

/// The part of slowfs's counters a profile needs (other keys are ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SlowfsSnapshot {
    /// The latency profile the mount runs (`none` for counting).
    pub profile: String,
    /// The injected delay per class, µs.
    pub delays_us: PerClass<f64>,
    /// Counters per class since mount.
    pub classes: PerClass<ClassCount>,
    /// fsync + fsyncdir calls (flush excluded) since mount.
    pub fsyncs: u64,
}

/// Reads the live counters of the slowfs mounted at `mount`.
pub fn read_snapshot(mount: &Path) -> Result<SlowfsSnapshot, IoLabError> {
    let file = mount.join(STATS_FILE);
    let not_slowfs = |reason: String| IoLabError::NotSlowfs {
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
    fn slowfs_counters_parse_and_extra_keys_are_ignored() {
        let text = r#"{"schema":1,"profile":"efs",
            "delays_us":{"metadata":250.0,"read":250.0,"write":2700.0,"sync":2700.0},
            "classes":{"metadata":{"ops":7,"bytes":0},"read":{"ops":2,"bytes":8192},
                       "write":{"ops":3,"bytes":12288},"sync":{"ops":4,"bytes":0}},
            "ops":{"lookup":5,"getattr":2},"fsyncs":1,"uptime_s":1.5}"#;
        let s: SlowfsSnapshot = serde_json::from_str(text).unwrap();
        assert_eq!(s.profile, "efs");
        assert_eq!(s.delays_us.write, 2700.0);
        assert_eq!(
            s.classes.write,
            ClassCount {
                ops: 3,
                bytes: 12288
            }
        );
        assert_eq!(s.fsyncs, 1);
    }

    #[test]
    fn a_plain_directory_is_not_slowfs() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_snapshot(dir.path()).unwrap_err();
        assert!(err.to_string().contains("is not a slowfs mount"), "{err}");
    }
}
