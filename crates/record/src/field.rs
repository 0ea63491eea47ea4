//! `field.json`: one run of a field workload (Firewood's, IAVL-bench's) on one profile, as
//! `triebench field --out` writes it.

use serde::{Deserialize, Serialize};

use crate::grow::Latency;

/// One field workload run: its size, its timed commits' rate and latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FieldResult {
    /// The workload's name (`firewood-tenkrandom`, `iavl-bank`, ...).
    pub workload: String,
    /// The triebench profile.
    pub profile: String,
    /// The scale parameter.
    pub scale: u64,
    /// The seed.
    pub seed: u64,
    /// Commits that built the starting state (not timed).
    pub setup_commits: u64,
    /// Commits timed.
    pub commits: u64,
    /// Leaves the timed commits wrote (inserts, updates and deletes).
    pub leaves: u64,
    /// Seconds the timed commits took, in all.
    pub total_s: f64,
    /// Timed commits per second.
    pub commits_per_s: f64,
    /// Leaves written per second of the timed commits.
    pub leaves_per_s: f64,
    /// Per-commit latency of the timed commits.
    pub commit: Latency,
    /// The root after the last commit.
    pub final_root: String,
    /// Reads the timed read batches made (Merk's); 0 where the workload reads nothing.
    #[serde(default)]
    pub reads: u64,
    /// Inserts per second of the timed commits that only insert (Merk's inserts, Firewood's
    /// `create`); absent where there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inserts_per_s: Option<f64>,
    /// Updates per second of the timed commits that only update; absent where there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates_per_s: Option<f64>,
    /// Reads per second of the timed read batches, each read alone at the current root;
    /// absent where there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_per_s: Option<f64>,
}
