//! `field.json`: one run of a field workload (Firewood's, IAVL-bench's, Merk's) on one profile,
//! as `triebench field --out` writes it; a `merk` run may hold Merk's own code's figures on the
//! same commits ([`MerkSide`]).

use serde::{Deserialize, Serialize};

use crate::grow::Latency;
use crate::merk_side::MerkSide;

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
    /// SHA-256 over the commits run (setup and timed, in order), hex, as
    /// `triebench_workloads::field::digest` computes it; absent in records written before it
    /// was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits_sha256: Option<String>,
    /// Merk's own code on the same commits, run after ours in the same run (`merk-runner`);
    /// absent where it did not run (another workload, no runner, an older record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merk: Option<MerkSide>,
}

#[cfg(test)]
mod tests {
    use super::FieldResult;
    use crate::merk_side::MerkSide;

    /// A `merk` record as written before the digest and Merk's side were kept.
    const OLDER: &str = r#"{"workload":"merk","profile":"lmdb","scale":1,"seed":1,
        "setup_commits":5,"commits":2,"leaves":4000,"total_s":0.5,"commits_per_s":4.0,
        "leaves_per_s":8000.0,"commit":{"count":2,"p50_us":1.0,"p99_us":2.0,"max_us":2.0},
        "final_root":"ab","reads":2000,"inserts_per_s":9000.0,"updates_per_s":7000.0,
        "reads_per_s":100000.0}"#;

    #[test]
    fn an_older_record_reads_without_merks_side() {
        let record: FieldResult = serde_json::from_str(OLDER).unwrap();
        assert_eq!(record.merk, None);
        assert_eq!(record.commits_sha256, None);
        assert_eq!(record.reads_per_s, Some(100_000.0));
        // Written back, it has neither field.
        let json = serde_json::to_string(&record).unwrap();
        assert!(
            !json.contains("merk\":") && !json.contains("commits_sha256"),
            "{json}"
        );
    }

    #[test]
    fn a_record_with_merks_side_round_trips() {
        let mut record: FieldResult = serde_json::from_str(OLDER).unwrap();
        record.commits_sha256 = Some("00".repeat(32));
        record.merk = Some(MerkSide {
            engine: "Merk 2.0.1".into(),
            rocksdb: "7.8.3".into(),
            inserts: 2000,
            inserts_per_s: 12_000.5,
            final_root: "11".repeat(20),
            commits_sha256: "00".repeat(32),
            ..MerkSide::default()
        });
        let json = serde_json::to_string_pretty(&record).unwrap();
        let back: FieldResult = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
    }
}
