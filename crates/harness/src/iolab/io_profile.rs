//! I/O profiles: what each backend profile asks of the filesystem per scenario and per commit,
//! counted by a slowfs mount (profile `none`) around one run of each scenario.
//!
//! Each scenario runs once on a fresh store in a fresh directory on the mount, like one
//! criterion iteration; the counters are read after the store is opened and before it is closed,
//! so they cover exactly what the benches time. Counts are filesystem-wide, so they include the
//! background work of a backend's own process (redis-server's AOF writes).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor};

use super::error::IoLabError;
use super::slowfs_stats::{read_snapshot, StatsSnapshot};
use super::{OpClass, PerClass};
use crate::report::bench_id::SUITE;
use crate::workloads::{Scenario, SCENARIOS};

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
    /// What happened between two snapshots of one mount.
    pub fn between(before: &StatsSnapshot, after: &StatsSnapshot) -> IoCounts {
        let d = |c: OpClass| {
            after
                .classes
                .get(c)
                .ops
                .saturating_sub(before.classes.get(c).ops)
        };
        IoCounts {
            ops: PerClass::from_fn(d),
            bytes_read: after
                .classes
                .read
                .bytes
                .saturating_sub(before.classes.read.bytes),
            bytes_written: after
                .classes
                .write
                .bytes
                .saturating_sub(before.classes.write.bytes),
            fsyncs: after.fsyncs.saturating_sub(before.fsyncs),
            write_extents: after.write_extents.saturating_sub(before.write_extents),
        }
    }

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
    pub fn save(&self, path: &Path) -> Result<(), IoLabError> {
        let bad = |reason: String| IoLabError::File {
            path: path.to_path_buf(),
            reason,
        };
        let text = serde_json::to_string_pretty(self).map_err(|e| bad(e.to_string()))?;
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| bad(e.to_string()))?;
        }
        fs::write(path, text + "\n").map_err(|e| bad(e.to_string()))
    }

    /// Reads a file written by [`IoProfileFile::save`]; `None` when there is none.
    pub fn load(path: &Path) -> Result<Option<IoProfileFile>, IoLabError> {
        if !path.is_file() {
            return Ok(None);
        }
        let bad = |reason: String| IoLabError::File {
            path: path.to_path_buf(),
            reason: format!("not an I/O profile ({reason}); re-run `triebench io-profile`"),
        };
        let text = fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let file: IoProfileFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if file.schema != SCHEMA {
            return Err(bad(format!("schema {} is not {SCHEMA}", file.schema)));
        }
        Ok(Some(file))
    }
}

/// Runs one scenario on an opened store between two counter snapshots.
struct Counted<'a> {
    scenario: Scenario,
    profile: Profile,
    mount: &'a Path,
}

impl StoreVisitor for Counted<'_> {
    type Output = Result<(u64, IoCounts), IoLabError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let before = read_snapshot(self.mount)?;
        let outcome = self.scenario.run(&store);
        let after = read_snapshot(self.mount)?;
        drop(store);
        let outcome = outcome.map_err(|source| IoLabError::Scenario {
            scenario: self.scenario.name(),
            profile: self.profile.name().to_string(),
            source,
        })?;
        Ok((outcome.commits as u64, IoCounts::between(&before, &after)))
    }
}

/// Counts every scenario once per profile on the slowfs mounted at `mount`, each on a fresh
/// store in a fresh directory there; `progress` hears each row as it is taken.
pub fn collect(
    mount: &Path,
    profiles: &[Profile],
    mut progress: impl FnMut(&IoRow),
) -> Result<IoProfileFile, IoLabError> {
    let first = read_snapshot(mount)?;
    let mut rows = Vec::new();
    for &profile in profiles {
        let mut suite = IoRow {
            profile: profile.name().to_string(),
            scenario: SUITE.to_string(),
            commits: 0,
            counts: IoCounts::default(),
        };
        for scenario in SCENARIOS {
            let dir = tempfile::Builder::new()
                .prefix("triebench-io-")
                .tempdir_in(mount)
                .map_err(|source| IoLabError::Io {
                    what: "cannot create a store directory",
                    dir: mount.to_path_buf(),
                    source,
                })?;
            let spec = BackendSpec::new(profile, Some(PathBuf::from(dir.path())))?;
            let counted = Counted {
                scenario,
                profile,
                mount,
            };
            let (commits, counts) = spec.open(triebench_merkle::TABLES, counted)??;
            let row = IoRow {
                profile: profile.name().to_string(),
                scenario: scenario.name().to_string(),
                commits,
                counts,
            };
            progress(&row);
            suite.commits += commits;
            suite.counts = suite.counts.plus(&counts);
            rows.push(row);
        }
        progress(&suite);
        rows.push(suite);
    }
    Ok(IoProfileFile {
        schema: SCHEMA,
        generated_at: crate::report::naming::now(),
        mount: mount.display().to_string(),
        slowfs_profile: first.profile,
        rows,
    })
}
