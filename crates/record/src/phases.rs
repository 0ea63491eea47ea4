//! Where a commit's time goes: time per phase (the span names of
//! [`PHASES`](crate::vocabulary::PHASES)) of one measured run
//! (`triebench root --phases FILE`), and the per-profile rows of a filesystem's phase run
//! (`triebench phases`, saved as `<criterion-dir>/triebench-runs/phases/<run>.json`).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cpu_idle::CpuIdleRecord;
use crate::error::RecordError;
use crate::vocabulary::SUITE;

/// Schema tag of [`PhaseRunFile`].
pub const SCHEMA: &str = "triebench-phases/1";

/// Sub-directory of the sidecar directory holding one phase file per run.
pub const DIR: &str = "phases";

/// Time per phase of one measured run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseRow {
    /// Backend profile.
    pub profile: String,
    /// What ran: a scenario name, `suite` (all ten), or `root` (a commit file).
    pub scenario: String,
    /// Commits made.
    pub commits: u64,
    /// The run's wall time, measured around it (not from the spans).
    pub total_ns: u64,
    /// Self time per phase (span name -> ns); nested phases are not counted twice, so these
    /// add up to the time spent inside the trie's calls.
    pub phases: BTreeMap<String, u64>,
    /// Spans closed per phase, for the cost of measuring (spans x ns per span).
    pub spans: BTreeMap<String, u64>,
}

impl PhaseRow {
    /// Nanoseconds of the phase named `phase` (0 when absent).
    pub fn ns(&self, phase: &str) -> u64 {
        self.phases.get(phase).copied().unwrap_or(0)
    }

    /// Sum of every phase.
    pub fn accounted_ns(&self) -> u64 {
        self.phases.values().sum()
    }

    /// Time outside every phase (workload code, opening the trie): total minus the phases.
    pub fn unaccounted_ns(&self) -> u64 {
        self.total_ns.saturating_sub(self.accounted_ns())
    }

    /// Spans closed in all.
    pub fn span_count(&self) -> u64 {
        self.spans.values().sum()
    }
}

/// One filesystem's phase run: a row per profile and scenario (and a `suite` row per profile).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseRunFile {
    /// [`SCHEMA`].
    pub schema: String,
    /// The run (filesystem) name, as in the criterion baseline.
    pub run: String,
    /// The directory the stores lived in.
    pub dir: String,
    /// UTC time it was taken.
    pub generated_at: String,
    /// The rows.
    pub rows: Vec<PhaseRow>,
    /// What idle CPUs did while it was taken (`triebench phases --cpu-idle`); `None` in files
    /// from before it was recorded.
    #[serde(default)]
    pub cpu_idle: Option<CpuIdleRecord>,
}

impl PhaseRunFile {
    /// Writes the file (creating its directory).
    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        save_json(self, path)
    }

    /// Reads a file written by [`PhaseRunFile::save`]; `None` when there is none.
    pub fn load(path: &Path) -> Result<Option<PhaseRunFile>, RecordError> {
        if !path.is_file() {
            return Ok(None);
        }
        let bad = |reason: String| RecordError::Sidecar {
            path: path.to_path_buf(),
            reason: format!("not a phase file ({reason}); re-run `triebench phases`"),
        };
        let text = crate::copy_tree::read_text(path).map_err(|e| bad(e.to_string()))?;
        let file: PhaseRunFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if file.schema != SCHEMA {
            return Err(bad(format!("schema {} is not {SCHEMA}", file.schema)));
        }
        Ok(Some(file))
    }

    /// The `suite` rows (one per profile), in file order.
    pub fn suite_rows(&self) -> impl Iterator<Item = &PhaseRow> {
        self.rows.iter().filter(|r| r.scenario == SUITE)
    }
}

/// Writes `value` as pretty JSON to `path`, creating its directory.
pub fn save_json<T: Serialize>(value: &T, path: &Path) -> Result<(), RecordError> {
    let bad = |reason: String| RecordError::Sidecar {
        path: path.to_path_buf(),
        reason,
    };
    let text = serde_json::to_string_pretty(value).map_err(|e| bad(e.to_string()))?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| bad(e.to_string()))?;
    }
    crate::file::write_atomically(path, (text + "\n").as_bytes()).map_err(|e| bad(e.to_string()))
}
