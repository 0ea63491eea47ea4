//! `engines.json`: authenticated state engines side by side (`triebench engines`): the same
//! workloads (Transact's `update`, a growth fill) on each engine × kv profile in one directory,
//! each engine's roots checked against its reference first.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::grow::Latency;
use crate::space::StoreSpace;
use crate::RecordError;

/// The engines file's schema version.
pub const SCHEMA: u32 = 1;

/// The file's name in an output folder.
pub const FILE_NAME: &str = "engines.json";

/// One `triebench engines` run: where, how big, and one [`EngineResult`] per engine × profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnginesRecord {
    /// [`SCHEMA`].
    pub schema: u32,
    /// When the run started (UTC, RFC 3339).
    pub started: String,
    /// The directory the file-backed stores were in (empty: none).
    pub dir: String,
    /// Its filesystem type (`tmpfs`, `ext4`, ...; `memory` without a directory).
    pub fs_type: String,
    /// Leaves the growth fill adds after the `update` workload.
    pub fill_leaves: u64,
    /// Leaves per fill commit.
    pub fill_batch: u64,
    /// Reads (warm, cold) and proofs timed per engine and profile.
    pub reads: u64,
    /// Seed of the fill's addresses and values and of the reads' picks.
    pub seed: u64,
    /// How cold reads were made cold.
    pub cold_method: String,
    /// One entry per engine × profile, in the order run.
    pub results: Vec<EngineResult>,
}

/// Timed commits of one workload on one engine and profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CommitFigures {
    /// Commits timed.
    pub commits: u64,
    /// Leaves those commits set or deleted.
    pub leaves: u64,
    /// Seconds they took, in all.
    pub total_s: f64,
    /// Commits per second of that time.
    pub commits_per_s: f64,
    /// Each commit's latency.
    pub commit: Latency,
    /// Bytes the run's processes (a managed server's included) wrote to storage per commit
    /// (`/proc/<pid>/io` `write_bytes`: 0 on tmpfs, whose pages never reach a device).
    pub write_bytes_per_commit: f64,
}

/// Proof size and time per address, for an engine that proves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ProofFigures {
    /// Proofs made and checked (leaves present in the final state).
    pub count: u64,
    /// Mean proof size, bytes (the engine's wire form).
    pub mean_bytes: f64,
    /// Largest proof, bytes.
    pub max_bytes: u64,
    /// Time to make one.
    pub prove: Latency,
    /// Time to check one.
    pub verify: Latency,
}

/// One of Transact's scenarios on one engine and profile (those the engine trait can run:
/// `triebench-measure`'s `engine_scenarios`), every read and root checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioFigures {
    /// Transact's test name without `merkle_trie_` (`root_advance`, ...).
    pub name: String,
    /// Commits it made.
    pub commits: u64,
    /// Reads it made (each checked against a model).
    pub reads: u64,
    /// Prunes it made.
    pub prunes: u64,
    /// Microseconds the engine's calls took, in all (the checks not included).
    pub total_us: f64,
    /// Why it was not run on this engine (a fault of the engine's that the scenario hits and
    /// that is known), if it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// One of the field's workloads (`triebench field`'s: Firewood's, IAVL-bench's bank) on one
/// engine and profile, on a fresh store: its setup commits untimed, its timed ones measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FieldFigures {
    /// The workload's name (`firewood-single`, `iavl-bank`, ...).
    pub workload: String,
    /// Its scale (`triebench field --scale`).
    pub scale: u64,
    /// Setup commits (building the state the timed ones start from).
    pub setup_commits: u64,
    /// The timed commits.
    pub timed: CommitFigures,
}

/// One engine on one profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineResult {
    /// The engine's name as `--engines` takes it (`trie`, `jmt`, ...).
    pub engine: String,
    /// The kv profile.
    pub profile: String,
    /// The reference its roots were checked against before it was measured.
    pub reference: String,
    /// Batches whose roots were checked equal to the reference's.
    pub checked_batches: u64,
    /// Transact's `update`: 1000 single-key commits, then one of 50 sets and 50 deletes.
    pub update: CommitFigures,
    /// The growth fill: `fill_leaves` new leaves in commits of `fill_batch`.
    pub fill: CommitFigures,
    /// Leaves in the final state.
    pub leaves: u64,
    /// The final state's root (hex).
    pub final_root: String,
    /// Bytes the store's directory holds once old versions are pruned (0 without one).
    pub disk_bytes: u64,
    /// `disk_bytes` per leaf.
    pub disk_bytes_per_leaf: f64,
    /// Where the store's bytes go, as the store reports it (`None`: it cannot say).
    pub space: Option<StoreSpace>,
    /// Rows in the engine's node table after pruning, when the engine keeps one.
    pub stored_nodes: Option<u64>,
    /// `stored_nodes` per leaf.
    pub nodes_per_leaf: Option<f64>,
    /// Reads of present leaves, each read once before it is timed.
    pub read_warm: Latency,
    /// Reads after the store was closed, its files evicted and reopened (`None`: the store
    /// lives in memory, or the engine cannot be reopened at a root).
    pub read_cold: Option<Latency>,
    /// Proofs (`None`: the engine makes none).
    pub proof: Option<ProofFigures>,
    /// Transact's scenarios, before the check (empty in a file from before they ran).
    #[serde(default)]
    pub scenarios: Vec<ScenarioFigures>,
    /// The field's workloads asked for (`triebench engines --field`), each on a fresh store.
    #[serde(default)]
    pub field: Vec<FieldFigures>,
}

/// Reads an engines file (`None` when there is none).
pub fn read(path: &Path) -> Result<Option<EnginesRecord>, RecordError> {
    crate::file::read_json(path, "engines run")
}

/// Writes an engines file atomically as pretty JSON.
pub fn write(path: &Path, record: &EnginesRecord) -> Result<(), RecordError> {
    crate::file::write_json(path, "engines run", record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_through_its_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(FILE_NAME);
        assert_eq!(read(&path).expect("absent is fine"), None);
        let record = EnginesRecord {
            schema: SCHEMA,
            fill_leaves: 10,
            results: vec![EngineResult {
                engine: "jmt".into(),
                profile: "lmdb".into(),
                stored_nodes: Some(3),
                proof: Some(ProofFigures {
                    count: 2,
                    ..ProofFigures::default()
                }),
                ..EngineResult::default()
            }],
            ..EnginesRecord::default()
        };
        write(&path, &record).expect("written");
        assert_eq!(read(&path).expect("read"), Some(record));
    }
}
