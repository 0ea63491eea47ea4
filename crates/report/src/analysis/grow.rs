//! What a growth curve says at its largest state: the figures the section's table and the
//! README's columns quote, and how much a path-compressed trie would save.

use crate::model::grow::GrowCurve;

/// One curve summed up at its last checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct GrowSummary {
    /// `<profile>`.
    pub profile: String,
    /// Filesystem name.
    pub fs: String,
    /// Leaves at the last checkpoint.
    pub leaves: u64,
    /// Fill rate of the last stretch, leaves/s.
    pub fill_rate: f64,
    /// The last stretch's fill time over its time in the backend (1.0: the backend's floor),
    /// where recorded.
    pub fill_over_storage: Option<f64>,
    /// The last stretch's fill time over its storage floor, the floor's writes in the trie's
    /// order and shuffled (`grow --fill-floor`), where measured (the shuffled one where it ran).
    pub fill_over_floor: Option<(f64, Option<f64>)>,
    /// p99 of 1-key commits, µs.
    pub commit1_p99_us: f64,
    /// p99 of 100-key commits, µs.
    pub commit100_p99_us: f64,
    /// Warm read p50, µs.
    pub read_warm_p50_us: f64,
    /// Cold read p50 and p99, µs, where measured.
    pub read_cold_us: Option<(f64, f64)>,
    /// Bytes on disk per leaf.
    pub disk_per_leaf: f64,
    /// What the store holds per leaf by its own accounting, and the data in it (node keys as
    /// stored, node values, change log) per leaf, where the store reports its pages.
    pub store_and_data_per_leaf: Option<(f64, f64)>,
    /// Logical bytes per leaf of Transact's trie, and of the path-compressed what-if.
    pub logical_per_leaf: (f64, f64),
    /// Nodes per leaf, Transact's and compressed.
    pub nodes_per_leaf: (f64, f64),
    /// Bytes written per 1-key commit.
    pub write_per_commit1: f64,
    /// For a bounded run: the limit and the peak usage, bytes, and whether it held.
    pub memory: Option<(u64, u64, bool)>,
}

/// The summary of `curve`, `None` when it has no checkpoint yet.
pub fn summarize(curve: &GrowCurve) -> Option<GrowSummary> {
    let c = curve.last()?;
    let per = |v: u64| v as f64 / c.leaves.max(1) as f64;
    Some(GrowSummary {
        profile: curve.record.profile.clone(),
        fs: curve.fs.clone(),
        leaves: c.leaves,
        fill_rate: c.fill_leaves_per_sec,
        fill_over_storage: c.fill_over_storage(),
        fill_over_floor: c.fill_over_floor(),
        commit1_p99_us: c.commit_1.latency.p99_us,
        commit100_p99_us: c.commit_100.latency.p99_us,
        read_warm_p50_us: c.read_warm.p50_us,
        read_cold_us: c.read_cold.map(|l| (l.p50_us, l.p99_us)),
        disk_per_leaf: c.disk_bytes_per_leaf,
        store_and_data_per_leaf: c
            .space
            .as_ref()
            .map(|s| (per(s.accounted_bytes()), per(s.data_bytes()))),
        logical_per_leaf: (per(c.what_if.bytes), per(c.what_if.compressed_bytes)),
        nodes_per_leaf: (per(c.what_if.nodes), per(c.what_if.compressed_nodes)),
        write_per_commit1: c.commit_1.write_bytes_per_commit,
        memory: curve
            .record
            .checkpoints
            .iter()
            .filter_map(|c| c.memory.as_ref())
            .fold(None, |acc: Option<(u64, u64, bool)>, m| {
                let peak = m.max_usage_bytes.max(m.usage_bytes);
                Some(match acc {
                    Some((l, p, h)) => (l, p.max(peak), h && m.held),
                    None => (m.limit_bytes, peak, m.held),
                })
            }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_record::grow::{Checkpoint, CompressedWhatIf, GrowRecord, MemoryBound};

    #[test]
    fn the_summary_takes_the_largest_checkpoint_and_the_memory_peak() {
        let cp = |leaves: u64, usage: u64| Checkpoint {
            leaves,
            disk_bytes_per_leaf: leaves as f64,
            what_if: CompressedWhatIf {
                nodes: 31 * leaves,
                bytes: 4000 * leaves,
                compressed_nodes: 2 * leaves,
                compressed_bytes: 500 * leaves,
            },
            memory: Some(MemoryBound {
                limit_bytes: 100,
                usage_bytes: usage,
                held: usage <= 100,
                ..MemoryBound::default()
            }),
            ..Checkpoint::default()
        };
        let curve = GrowCurve {
            fs: "disk".into(),
            record: GrowRecord {
                profile: "lmdb".into(),
                checkpoints: vec![cp(1000, 90), cp(10000, 60)],
                ..GrowRecord::default()
            },
        };
        let s = summarize(&curve).unwrap();
        assert_eq!(s.leaves, 10000);
        assert_eq!(s.nodes_per_leaf, (31.0, 2.0));
        assert_eq!(s.logical_per_leaf, (4000.0, 500.0));
        assert_eq!(s.memory, Some((100, 90, true)));
    }
}
