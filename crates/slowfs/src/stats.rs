//! Live counters: operations and bytes per class and per FUSE operation, lock-free.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::class::{OpClass, PerClass};
use crate::latency_profile::Latency;
use crate::op::Op;
use crate::snapshot::{ClassCounts, StatsSnapshot, SCHEMA};

/// Counters shared by all FUSE worker threads; [`Stats::snapshot`] reads them for the JSON.
#[derive(Debug)]
pub struct Stats {
    latency: Latency,
    started: Instant,
    class_ops: [AtomicU64; 4],
    class_bytes: [AtomicU64; 4],
    op_counts: [AtomicU64; Op::ALL.len()],
    write_extents: AtomicU64,
    /// Where the last write to each inode ended.
    write_ends: Mutex<HashMap<u64, u64>>,
}

impl Stats {
    /// Zeroed counters for a mount with these delays; uptime counts from now.
    pub fn new(latency: Latency) -> Stats {
        Stats {
            latency,
            started: Instant::now(),
            class_ops: Default::default(),
            class_bytes: Default::default(),
            op_counts: std::array::from_fn(|_| AtomicU64::new(0)),
            write_extents: AtomicU64::new(0),
            write_ends: Mutex::new(HashMap::new()),
        }
    }

    /// The delays in force.
    pub fn latency(&self) -> &Latency {
        &self.latency
    }

    /// Counts one request of `op` that moved `bytes` bytes (0 except for read and write).
    pub fn record(&self, op: Op, bytes: u64) {
        let class = op.class().index();
        self.op_counts[op.index()].fetch_add(1, Ordering::Relaxed);
        self.class_ops[class].fetch_add(1, Ordering::Relaxed);
        if bytes > 0 {
            self.class_bytes[class].fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// How many requests of `op` were counted.
    /// Notes a successful write of `len` bytes at `offset` to inode `ino`: a new extent unless it
    /// starts where the previous write to that inode ended.
    pub fn record_write_extent(&self, ino: u64, offset: u64, len: u64) {
        let mut ends = self
            .write_ends
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if ends.insert(ino, offset + len) != Some(offset) {
            self.write_extents.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn op_count(&self, op: Op) -> u64 {
        self.op_counts[op.index()].load(Ordering::Relaxed)
    }

    /// The counters now, in the shape of the stats JSON.
    pub fn snapshot(&self) -> StatsSnapshot {
        let ops = Op::ALL
            .iter()
            .map(|op| (op.name().to_string(), self.op_count(*op)))
            .collect();
        let fsyncs = Op::ALL
            .iter()
            .filter(|op| op.is_fsync())
            .map(|op| self.op_count(*op))
            .sum();
        StatsSnapshot {
            schema: SCHEMA,
            profile: self.latency.label.clone(),
            delays_us: self.latency.delays_us,
            classes: PerClass::from_fn(|c: OpClass| ClassCounts {
                ops: self.class_ops[c.index()].load(Ordering::Relaxed),
                bytes: self.class_bytes[c.index()].load(Ordering::Relaxed),
            }),
            ops,
            fsyncs,
            write_extents: self.write_extents.load(Ordering::Relaxed),
            uptime_s: self.started.elapsed().as_secs_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency_profile::LatencyProfile;

    #[test]
    fn contiguous_writes_to_a_file_are_one_extent() {
        let stats = Stats::new(Latency::new(LatencyProfile::None, PerClass::default()).unwrap());
        stats.record_write_extent(7, 0, 4096);
        stats.record_write_extent(7, 4096, 4096);
        stats.record_write_extent(8, 8192, 4096);
        stats.record_write_extent(7, 8192, 10);
        stats.record_write_extent(7, 0, 4096);
        assert_eq!(stats.snapshot().write_extents, 3);
    }

    #[test]
    fn counts_land_in_class_op_and_fsyncs() {
        let stats = Stats::new(Latency::new(LatencyProfile::Efs, PerClass::default()).unwrap());
        stats.record(Op::Write, 4096);
        stats.record(Op::Write, 100);
        stats.record(Op::Read, 8192);
        stats.record(Op::Fsync, 0);
        stats.record(Op::Fsyncdir, 0);
        stats.record(Op::Flush, 0);
        stats.record(Op::Lookup, 0);
        let s = stats.snapshot();
        assert_eq!(s.profile, "efs");
        assert_eq!(s.delays_us.write, 2700.0);
        assert_eq!((s.classes.write.ops, s.classes.write.bytes), (2, 4196));
        assert_eq!((s.classes.read.ops, s.classes.read.bytes), (1, 8192));
        assert_eq!((s.classes.sync.ops, s.classes.sync.bytes), (3, 0));
        assert_eq!(s.classes.metadata.ops, 1);
        assert_eq!(s.fsyncs, 2, "flush is not an fsync");
        assert_eq!(s.ops["write"], 2);
        assert_eq!(s.ops["getattr"], 0);
        assert_eq!(s.ops.len(), Op::ALL.len());
        let per_class: u64 = OpClass::ALL.iter().map(|c| s.classes.get(*c).ops).sum();
        assert_eq!(per_class, s.ops.values().sum::<u64>());
    }

    #[test]
    fn concurrent_records_are_not_lost() {
        let stats = Stats::new(Latency::new(LatencyProfile::None, PerClass::default()).unwrap());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        stats.record(Op::Write, 1);
                    }
                });
            }
        });
        let snap = stats.snapshot();
        assert_eq!(
            (snap.classes.write.ops, snap.classes.write.bytes),
            (4000, 4000)
        );
    }
}
