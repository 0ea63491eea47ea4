//! I/O profiles (`io-profile.json`): what each backend profile asks of the filesystem per
//! scenario and per commit, counted by a slowfs mount (profile `none`) around one run of each
//! scenario (taken by `triebench-measure`'s `io_profile_run`).

use std::fs;
use std::path::Path;

use crate::class::PerClass;
use crate::error::RecordError;
use serde::{Deserialize, Serialize};

/// The I/O profile file's schema version.
pub const SCHEMA: u32 = 1;

/// The file name of an I/O profile, beside the run sidecars and in result folders.
pub const FILE_NAME: &str = "io-profile.json";

/// Operations one scenario run asked of the filesystem.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoCounts {
    /// Operations per class.
    pub ops: PerClass<u64>,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// fsync/fdatasync/fsyncdir calls (the sync class less the flushes on close).
    pub fsyncs: u64,
    /// Writes that do not continue the previous write to their file: the runs of data an fsync
    /// must flush on a page-cache filesystem.
    #[serde(default)]
    pub write_extents: u64,
}

impl IoCounts {
    /// The sum of two counts.
    pub fn plus(&self, other: &IoCounts) -> IoCounts {
        IoCounts {
            ops: PerClass::from_fn(|c| self.ops.get(c) + other.ops.get(c)),
            bytes_read: self.bytes_read + other.bytes_read,
            bytes_written: self.bytes_written + other.bytes_written,
            fsyncs: self.fsyncs + other.fsyncs,
            write_extents: self.write_extents + other.write_extents,
        }
    }
}

/// One backend profile × scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoRow {
    /// The backend profile.
    pub profile: String,
    /// The scenario, or `suite` for the sum of all ten.
    pub scenario: String,
    /// Trie commits the scenario made.
    pub commits: u64,
    /// What it asked of the filesystem.
    pub counts: IoCounts,
}

impl IoRow {
    /// `count` per commit (the whole count when the scenario made no commit).
    pub fn per_commit(&self, count: u64) -> f64 {
        count as f64 / self.commits.max(1) as f64
    }
}

/// `io-profile.json`: every profile × scenario, plus each profile's suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoProfileFile {
    /// [`SCHEMA`].
    pub schema: u32,
    /// When it was taken (UTC).
    pub generated_at: String,
    /// The slowfs mount the counts come from.
    pub mount: String,
    /// That mount's latency profile (`none` unless asked otherwise).
    pub slowfs_profile: String,
    /// The rows, profile by profile, the ten scenarios then `suite`.
    pub rows: Vec<IoRow>,
}

impl IoProfileFile {
    /// The row of `profile` × `scenario`.
    pub fn row(&self, profile: &str, scenario: &str) -> Option<&IoRow> {
        self.rows
            .iter()
            .find(|r| r.profile == profile && r.scenario == scenario)
    }

    /// Writes the file as pretty JSON.
    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        let bad = |reason: String| RecordError::Sidecar {
            path: path.to_path_buf(),
            reason,
        };
        let text = serde_json::to_string_pretty(self).map_err(|e| bad(e.to_string()))?;
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| bad(e.to_string()))?;
        }
        crate::file::write_atomically(path, (text + "\n").as_bytes())
            .map_err(|e| bad(e.to_string()))
    }

    /// Reads a file written by [`IoProfileFile::save`]; `None` when there is none.
    pub fn load(path: &Path) -> Result<Option<IoProfileFile>, RecordError> {
        if !path.is_file() {
            return Ok(None);
        }
        let bad = |reason: String| RecordError::Sidecar {
            path: path.to_path_buf(),
            reason: format!("not an I/O profile ({reason}); re-run `triebench io-profile`"),
        };
        let text = crate::copy_tree::read_text(path).map_err(|e| bad(e.to_string()))?;
        let file: IoProfileFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if file.schema != SCHEMA {
            return Err(bad(format!("schema {} is not {SCHEMA}", file.schema)));
        }
        Ok(Some(file))
    }
}
