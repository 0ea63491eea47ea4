//! Merk's own code on a `merk` field run's commits, measured in the same run (`merk-runner`,
//! crates/merk-compare): the figures `triebench field --workload merk` records beside ours
//! ([`FieldResult::merk`](crate::field::FieldResult::merk)), and the one JSON line
//! `merk-runner` prints, which both sides read and write through this type.

use serde::{Deserialize, Serialize};

/// Merk's side of one `merk` field run: the same commits (checked by [`commits_sha256`]),
/// applied and committed by the published `merk` crate over RocksDB.
///
/// [`commits_sha256`]: MerkSide::commits_sha256
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MerkSide {
    /// What ran: the crate and its version (`merk 2.0.1`).
    pub engine: String,
    /// The RocksDB library it ran on, as RocksDB's own log names it (`7.8.3`); empty when
    /// the log did not say.
    pub rocksdb: String,
    /// Whether each commit reaches stable storage before it returns: `false` for Merk 2.0.1,
    /// whose `commit` writes its RocksDB batch with `set_sync(false)` (the write-ahead log on,
    /// not synced).
    pub synced: bool,
    /// The workload's scale.
    pub scale: u64,
    /// The workload's seed.
    pub seed: u64,
    /// Batches applied and committed before the timed ones (untimed).
    pub setup_batches: u64,
    /// Inserts of new keys, timed.
    pub inserts: u64,
    /// Updates of held keys, timed.
    pub updates: u64,
    /// Reads (`Merk::get`, one key each), timed.
    pub reads: u64,
    /// Reads whose value was compared with the value last written there, and equal (every
    /// read: a difference stops the run).
    pub reads_checked: u64,
    /// Seconds of the untimed setup, for the record.
    pub setup_s: f64,
    /// Seconds the insert batches took (each `apply` then `commit`).
    pub inserts_s: f64,
    /// Seconds the update batches took (each `apply` then `commit`).
    pub updates_s: f64,
    /// Seconds the reads took.
    pub reads_s: f64,
    /// Inserts per second (`inserts / inserts_s`).
    pub inserts_per_s: f64,
    /// Updates per second.
    pub updates_per_s: f64,
    /// Reads per second.
    pub reads_per_s: f64,
    /// Merk's root hash after the last batch, hex (20 bytes).
    pub final_root: String,
    /// Bytes of the files in Merk's RocksDB directory at the end, before it is closed.
    pub bytes_on_disk: u64,
    /// SHA-256 over the commits run, as `triebench_workloads::field::digest` computes it: equal
    /// to our side's [`FieldResult::commits_sha256`](crate::field::FieldResult::commits_sha256)
    /// when both ran the same keys and values.
    pub commits_sha256: String,
}

impl MerkSide {
    /// Who ran, as the report's "beside" cell names it.
    pub fn described(&self) -> String {
        let rocksdb = if self.rocksdb.is_empty() {
            "RocksDB".to_string()
        } else {
            format!("RocksDB {}", self.rocksdb)
        };
        let sync = if self.synced { "synced" } else { "unsynced" };
        let engine = if self.engine.is_empty() {
            "Merk"
        } else {
            self.engine.as_str()
        };
        format!("{engine}'s own code ({rocksdb}, {sync}), measured in the same run")
    }
}

#[cfg(test)]
mod tests {
    use super::MerkSide;

    #[test]
    fn described_names_the_crate_the_library_and_the_sync() {
        let side = MerkSide {
            engine: "Merk 2.0.1".into(),
            rocksdb: "7.8.3".into(),
            ..MerkSide::default()
        };
        assert_eq!(
            side.described(),
            "Merk 2.0.1's own code (RocksDB 7.8.3, unsynced), measured in the same run"
        );
    }
}
