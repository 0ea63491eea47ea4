//! Growth curves (`grow.json`, `triebench grow`): how a profile's costs change as its state
//! fills, one [`Checkpoint`] per size (10^3, 10^4, ... leaves). The schema is in
//! `docs/grow.md`; each checkpoint is also written as one CSV row (`checkpoint-<leaves>.csv`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::RecordError;

/// The grow file's schema version.
pub const SCHEMA: u32 = 1;

/// The file name of a growth curve.
pub const FILE_NAME: &str = "grow.json";

/// Latency percentiles of one kind of operation, µs (from an hdrhistogram).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Operations timed.
    pub count: u64,
    /// Median, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Slowest, µs.
    pub max_us: f64,
}

/// Commit latency and storage writes of one batch size at a checkpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CommitCost {
    /// Keys per commit (updates of random existing leaves).
    pub keys: u64,
    /// Latency of `MerkleTrie::commit`.
    pub latency: Latency,
    /// Bytes sent to storage per commit: `/proc/<pid>/io` `write_bytes` of this process and of
    /// a managed server, over the timed commits, divided by their count (0 on tmpfs, which
    /// does not account writes there).
    pub write_bytes_per_commit: f64,
}

/// The what-if of a path-compressed trie over the same state (single-child chains folded into
/// their child), computed from the addresses and value sizes, not from a second trie.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CompressedWhatIf {
    /// Nodes of the trie as Transact stores it (one per distinct token prefix, root included).
    pub nodes: u64,
    /// Their logical bytes: 64-byte key plus the CBOR encoding, per node.
    pub bytes: u64,
    /// Nodes if single-child paths were compressed (root, branch nodes and leaves).
    pub compressed_nodes: u64,
    /// Their logical bytes, with each edge's key holding its whole path segment.
    pub compressed_bytes: u64,
}

/// The memory cgroup a bounded run (`--memory`) ran in, read at a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MemoryBound {
    /// `v1` (`memory.limit_in_bytes`) or `v2` (`memory.max`).
    pub cgroup_version: String,
    /// The cgroup's directory.
    pub path: String,
    /// The limit set, bytes.
    pub limit_bytes: u64,
    /// Usage now, bytes (`memory.usage_in_bytes` / `memory.current`).
    pub usage_bytes: u64,
    /// Peak usage so far where the kernel keeps it (`memory.max_usage_in_bytes` /
    /// `memory.peak`), else 0.
    pub max_usage_bytes: u64,
    /// Page cache charged to the cgroup (`memory.stat` `cache` in v1, `file` in v2).
    pub cache_bytes: u64,
    /// Anonymous memory charged (`rss` in v1, `anon` in v2).
    pub anon_bytes: u64,
    /// Whether usage and the peak stayed at or under the limit.
    pub held: bool,
}

/// Everything measured at one state size.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Leaves in the state.
    pub leaves: u64,
    /// Leaves per second of the fill from the previous checkpoint to this one.
    pub fill_leaves_per_sec: f64,
    /// Seconds that fill took.
    pub fill_secs: f64,
    /// 1-key commits.
    pub commit_1: CommitCost,
    /// 100-key commits.
    pub commit_100: CommitCost,
    /// `MerkleTrie::get` of random existing addresses, the store's pages cached (read once
    /// before the timed pass).
    pub read_warm: Latency,
    /// The same of other addresses after the store was closed and its files evicted from the
    /// page cache (see [`GrowRecord::cold_method`]); `None` where the data is not in files.
    pub read_cold: Option<Latency>,
    /// Bytes the store directory occupies on disk (allocated blocks, a managed server's data
    /// directory included).
    pub disk_bytes: u64,
    /// `disk_bytes / leaves`.
    pub disk_bytes_per_leaf: f64,
    /// Entries in the trie's node table (live nodes plus what pruning has not released).
    pub stored_nodes: u64,
    /// Nodes of the state's trie per leaf ([`CompressedWhatIf::nodes`] / leaves).
    pub nodes_per_leaf: f64,
    /// Resident memory of this process plus a managed server, bytes.
    pub rss_bytes: u64,
    /// The path-compression what-if.
    pub what_if: CompressedWhatIf,
    /// The memory cgroup's state, for a bounded run.
    pub memory: Option<MemoryBound>,
    /// Where the time of the stretch's last fill commit (and its prune) went: self time per
    /// phase, ns, named as in [`crate::vocabulary::PHASES`], that one commit timed with the
    /// phase collector listening (the others run without it, which would cost them ~10%).
    /// Empty in curves written before it was recorded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fill_phases: BTreeMap<String, u64>,
    /// Wall time of that commit and prune, ns (0 where not recorded).
    #[serde(default)]
    pub fill_phases_wall_ns: u64,
    /// Where the store's bytes go at this size, as its backend accounts them; `None` for a
    /// store without pages of its own (memory, Redis) and in curves written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<crate::space::StoreSpace>,
    /// The fill's storage floor over the same stretch (`grow --fill-floor`); `None` when not
    /// asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_floor: Option<FillFloor>,
    /// The compaction of the store after this stretch's fill, before its commits were timed
    /// (`grow --compact-after-fill`); `None` when not asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<FillCompaction>,
}

/// A compaction of the store between a stretch's fill and its timed commits: the data file
/// rewritten with its entries packed into full pages (LMDB's copy-on-write leaves the pages a
/// large commit copied behind as free pages, and a free list that later commits rewrite).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct FillCompaction {
    /// The data file's bytes before.
    pub bytes_before: u64,
    /// Its bytes after.
    pub bytes_after: u64,
    /// Seconds the compaction took (not in the fill's time).
    pub secs: f64,
}

/// The fill's storage floor: every fill commit's writes (new nodes, change-log entries, the
/// prune's deletions), as the trie made them, replayed straight onto more stores of the same
/// profile on the same filesystem right after the fill commit, in the same transactions: once
/// in the trie's order (a commit's new nodes in key order) and, unless left out, once with each
/// `put_many` shuffled. Nothing read, nothing hashed: what storing the fill costs the backend
/// alone.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FillFloor {
    /// Seconds the replays in the trie's order took over the stretch.
    pub sorted_secs: f64,
    /// Seconds the shuffled replays took; `None` where that floor was left out
    /// (`--fill-floor-trie-order-only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shuffled_secs: Option<f64>,
    /// Entries written (puts and deletes) over the stretch.
    pub entries: u64,
    /// Bytes of keys and values written over the stretch.
    pub bytes: u64,
}

impl Checkpoint {
    /// The fill's time over its floor in the trie's order, and over the shuffled one where
    /// that ran.
    pub fn fill_over_floor(&self) -> Option<(f64, Option<f64>)> {
        let f = self.fill_floor.as_ref()?;
        let shuffled = f
            .shuffled_secs
            .filter(|s| *s > 0.0)
            .map(|s| self.fill_secs / s);
        (f.sorted_secs > 0.0).then(|| (self.fill_secs / f.sorted_secs, shuffled))
    }
}

/// The phases that are the backend's own work: its reads, its staged writes, its commit.
pub const STORAGE_PHASES: [&str; 3] = ["storage_read", "storage_write", "commit"];

impl Checkpoint {
    /// Nanoseconds of the measured fill commit spent in the backend ([`STORAGE_PHASES`]).
    pub fn fill_storage_ns(&self) -> u64 {
        STORAGE_PHASES
            .iter()
            .filter_map(|p| self.fill_phases.get(*p))
            .sum()
    }

    /// The measured fill commit's time over its time in the backend: how far the fill runs
    /// above the cost of storing the same nodes (1.0 would be the backend's floor); `None` when
    /// no phases were recorded.
    pub fn fill_over_storage(&self) -> Option<f64> {
        let storage = self.fill_storage_ns();
        (storage > 0 && self.fill_phases_wall_ns > 0)
            .then(|| self.fill_phases_wall_ns as f64 / storage as f64)
    }
}

/// A growth curve: one profile on one directory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GrowRecord {
    /// [`SCHEMA`].
    pub schema: u32,
    /// Backend profile.
    pub profile: String,
    /// Directory the store lived in.
    pub dir: String,
    /// Its filesystem type (`tmpfs`, `ext4`, `fuse.slowfs`...).
    pub fs_type: String,
    /// How the fill commits: leaves per commit, and whether it keeps a change log.
    pub fill: String,
    /// Leaves per fill commit.
    pub fill_batch: u64,
    /// How the cold reads were made cold.
    pub cold_method: String,
    /// The memory limit asked for (`--memory`), bytes.
    pub memory_limit_bytes: Option<u64>,
    /// Seed of addresses and values.
    pub seed: u64,
    /// UTC time the run started.
    pub started: String,
    /// One entry per checkpoint, in ascending leaf count.
    pub checkpoints: Vec<Checkpoint>,
    /// The emulated network to the managed server (`--net-rtt`), when the run had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<crate::net::NetRecord>,
}

/// The CSV header of a checkpoint file; [`csv_row`] writes the matching row.
pub const CSV_HEADER: &str = "profile,leaves,fill_leaves_per_sec,commit1_p50_us,commit1_p99_us,\
commit1_max_us,commit1_write_bytes,commit100_p50_us,commit100_p99_us,commit100_max_us,\
commit100_write_bytes,read_warm_p50_us,read_warm_p99_us,read_warm_max_us,read_cold_p50_us,\
read_cold_p99_us,read_cold_max_us,disk_bytes,disk_bytes_per_leaf,stored_nodes,nodes_per_leaf,\
rss_bytes,nodes,node_bytes,compressed_nodes,compressed_bytes,cgroup_limit_bytes,\
cgroup_usage_bytes,cgroup_max_usage_bytes,cgroup_cache_bytes,fill_over_storage";

/// One checkpoint as a CSV row matching [`CSV_HEADER`] (empty cells where nothing applies).
pub fn csv_row(profile: &str, c: &Checkpoint) -> String {
    let cold = |f: fn(&Latency) -> f64| c.read_cold.as_ref().map(f).map(|v| format!("{v:.1}"));
    let mem = |f: fn(&MemoryBound) -> u64| c.memory.as_ref().map(f).map(|v| v.to_string());
    let cells: Vec<String> = vec![
        profile.to_string(),
        c.leaves.to_string(),
        format!("{:.0}", c.fill_leaves_per_sec),
        format!("{:.1}", c.commit_1.latency.p50_us),
        format!("{:.1}", c.commit_1.latency.p99_us),
        format!("{:.1}", c.commit_1.latency.max_us),
        format!("{:.0}", c.commit_1.write_bytes_per_commit),
        format!("{:.1}", c.commit_100.latency.p50_us),
        format!("{:.1}", c.commit_100.latency.p99_us),
        format!("{:.1}", c.commit_100.latency.max_us),
        format!("{:.0}", c.commit_100.write_bytes_per_commit),
        format!("{:.1}", c.read_warm.p50_us),
        format!("{:.1}", c.read_warm.p99_us),
        format!("{:.1}", c.read_warm.max_us),
        cold(|l| l.p50_us).unwrap_or_default(),
        cold(|l| l.p99_us).unwrap_or_default(),
        cold(|l| l.max_us).unwrap_or_default(),
        c.disk_bytes.to_string(),
        format!("{:.1}", c.disk_bytes_per_leaf),
        c.stored_nodes.to_string(),
        format!("{:.2}", c.nodes_per_leaf),
        c.rss_bytes.to_string(),
        c.what_if.nodes.to_string(),
        c.what_if.bytes.to_string(),
        c.what_if.compressed_nodes.to_string(),
        c.what_if.compressed_bytes.to_string(),
        mem(|m| m.limit_bytes).unwrap_or_default(),
        mem(|m| m.usage_bytes).unwrap_or_default(),
        mem(|m| m.max_usage_bytes).unwrap_or_default(),
        mem(|m| m.cache_bytes).unwrap_or_default(),
        c.fill_over_storage()
            .map(|r| format!("{r:.2}"))
            .unwrap_or_default(),
    ];
    cells.join(",")
}

/// Reads a growth curve; `Ok(None)` when the file does not exist.
pub fn read(path: &Path) -> Result<Option<GrowRecord>, RecordError> {
    crate::file::read_json(path, "growth curve")
}

/// Writes a growth curve atomically as pretty JSON.
pub fn write(path: &Path, record: &GrowRecord) -> Result<(), RecordError> {
    crate::file::write_json(path, "growth curve", record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_row_has_one_cell_per_header_column() {
        let c = Checkpoint {
            leaves: 1000,
            read_cold: Some(Latency::default()),
            memory: Some(MemoryBound::default()),
            ..Checkpoint::default()
        };
        let header = CSV_HEADER.split(',').count();
        assert_eq!(csv_row("lmdb", &c).split(',').count(), header);
        let bare = Checkpoint::default();
        assert_eq!(csv_row("btree", &bare).split(',').count(), header);
        assert!(csv_row("btree", &bare).ends_with(",,,,"));
    }
}
