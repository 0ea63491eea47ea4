//! The slowdown predictor: the time on a filesystem is the time measured on the baseline plus,
//! per operation class, the operations counted (slowfs, profile `none`) times what that class
//! costs there beyond what it costs on the baseline; plus, where the scenario fsyncs, each
//! separate run of written data times what flushing one more run costs there (a page-cache
//! filesystem on a block device pays for writes at the fsync, per request).
//!
//! The model charges every counted operation its filesystem's median cost and nothing else: it
//! knows nothing of client caches a network filesystem invalidates on locks, of writeback a
//! block device batches, or of a journal's extra writes per fsync beyond what the probe's one
//! 4 KiB `fdatasync` pays. Where it misses, that is what it left out.

use serde::{Deserialize, Serialize};

use crate::model::io_profile::{IoCounts, IoProfileFile};
use crate::{OpClass, PerClass};

/// Amazon EFS's published per-operation latency floors (µs), as slowfs's `efs` profile uses
/// them: "as low as 250 microseconds for reads and 2.7 milliseconds for writes" (AWS, Amazon EFS
/// performance); metadata is charged a read's round trip and a sync a write's.
pub const PUBLISHED_EFS_US: PerClass<f64> = PerClass {
    metadata: 250.0,
    read: 250.0,
    write: 2700.0,
    sync: 2700.0,
};

/// What a filesystem charges, as the predictor models it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FsCost {
    /// Per operation, by class (µs).
    pub per_op_us: PerClass<f64>,
    /// Per further separate run of dirty data an fsync flushes (µs).
    pub flush_extent_us: f64,
}

/// AWS EFS as the predictor charges it: [`PUBLISHED_EFS_US`] per operation, write-through (no
/// extra cost per run of data at an fsync).
pub const PUBLISHED_EFS_COST: FsCost = FsCost {
    per_op_us: PUBLISHED_EFS_US,
    flush_extent_us: 0.0,
};

/// A slowdown the Transact study published for a backend on EFS (whole suite, EFS over EBS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PublishedSlowdown {
    /// Our profile that matches the published backend's configuration.
    pub profile: &'static str,
    /// The published backend, as the study names it.
    pub published_as: &'static str,
    /// Suite time on EBS (s).
    pub ebs_s: f64,
    /// Suite time on EFS (s).
    pub efs_s: f64,
}

impl PublishedSlowdown {
    /// EFS time over EBS time.
    pub fn slowdown(&self) -> f64 {
        self.efs_s / self.ebs_s
    }
}

/// Transact 0.3.7 on an AWS t2.medium, `TMPDIR` on EBS then on EFS (DESIGN.md). Transact's LMDB
/// opens with WRITEMAP|MAPASYNC|NORDAHEAD|NOSUBDIR, which is our `lmdb-async`; its SQLite runs
/// WAL with synchronous=NORMAL, which is our `sqlite-wal`.
pub const PUBLISHED_EFS: [PublishedSlowdown; 2] = [
    PublishedSlowdown {
        profile: "lmdb-async",
        published_as: "LMDB",
        ebs_s: 0.850,
        efs_s: 15.44,
    },
    PublishedSlowdown {
        profile: "sqlite-wal",
        published_as: "SQLite (WAL)",
        ebs_s: 6.737,
        efs_s: 663.6,
    },
];

/// The time (ns) `counts` add on the `target` filesystem over the `baseline` one; a cost lower
/// on the target than on the baseline adds nothing. Runs of written data are charged only when
/// the counts include an fsync (otherwise nothing flushes them while the clock runs).
pub fn extra_ns(counts: &IoCounts, target: &FsCost, baseline: &FsCost) -> f64 {
    let per_op: f64 = OpClass::ALL
        .iter()
        .map(|&c| {
            let extra_us = (target.per_op_us.get(c) - baseline.per_op_us.get(c)).max(0.0);
            *counts.ops.get(c) as f64 * extra_us * 1e3
        })
        .sum();
    let flushed = if counts.fsyncs > 0 {
        let extra_us = (target.flush_extent_us - baseline.flush_extent_us).max(0.0);
        counts.write_extents as f64 * extra_us * 1e3
    } else {
        0.0
    };
    per_op + flushed
}

/// One predicted cell: a profile × scenario on a target filesystem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The run (filesystem) predicted, or `aws-efs (published)`.
    pub target: String,
    /// The backend profile.
    pub profile: String,
    /// The scenario (`suite` for all ten).
    pub scenario: String,
    /// Measured on the baseline run (ns per iteration).
    pub baseline_ns: f64,
    /// Predicted on the target (ns per iteration).
    pub predicted_ns: f64,
    /// Measured on the target, when it was run (ns per iteration).
    pub measured_ns: Option<f64>,
}

impl Prediction {
    /// `predicted / measured - 1` (e.g. `-0.12` is 12% under), when the target was measured.
    pub fn error(&self) -> Option<f64> {
        self.measured_ns
            .filter(|m| *m > 0.0)
            .map(|m| self.predicted_ns / m - 1.0)
    }
}

/// Predicts `profile` × `scenario` on the `target` filesystem from the baseline's time and
/// costs; `None` when the I/O profile lacks that row.
pub fn predict(
    io: &IoProfileFile,
    profile: &str,
    scenario: &str,
    baseline_ns: f64,
    target: &FsCost,
    baseline: &FsCost,
) -> Option<f64> {
    io.row(profile, scenario)
        .map(|row| baseline_ns + extra_ns(&row.counts, target, baseline))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::io_profile::{IoRow, SCHEMA};

    fn cost(per_op_us: PerClass<f64>) -> FsCost {
        FsCost {
            per_op_us,
            flush_extent_us: 0.0,
        }
    }

    fn io(ops: PerClass<u64>) -> IoProfileFile {
        IoProfileFile {
            schema: SCHEMA,
            generated_at: String::new(),
            mount: String::new(),
            slowfs_profile: "none".into(),
            rows: vec![IoRow {
                profile: "lmdb".into(),
                scenario: "suite".into(),
                commits: 10,
                counts: IoCounts {
                    ops,
                    ..IoCounts::default()
                },
            }],
        }
    }

    #[test]
    fn each_class_adds_count_times_its_extra_latency() {
        let file = io(PerClass {
            metadata: 10,
            read: 0,
            write: 20,
            sync: 5,
        });
        let base = cost(PerClass {
            metadata: 1.0,
            read: 1.0,
            write: 1.0,
            sync: 1.0,
        });
        let target = cost(PerClass {
            metadata: 11.0,
            read: 500.0,
            write: 101.0,
            sync: 1001.0,
        });
        // 10 × 10 µs + 20 × 100 µs + 5 × 1000 µs = 7.1 ms on top of 1 ms.
        let p = predict(&file, "lmdb", "suite", 1e6, &target, &base).unwrap();
        assert!((p - 8.1e6).abs() < 1e-3, "{p}");
        assert_eq!(predict(&file, "redis", "suite", 1e6, &target, &base), None);
    }

    #[test]
    fn a_class_cheaper_than_on_the_baseline_adds_nothing() {
        let counts = IoCounts {
            ops: PerClass {
                metadata: 0,
                read: 100,
                write: 0,
                sync: 0,
            },
            ..IoCounts::default()
        };
        let base = cost(PerClass {
            read: 50.0,
            ..PerClass::default()
        });
        assert_eq!(extra_ns(&counts, &cost(PerClass::default()), &base), 0.0);
    }

    #[test]
    fn runs_of_written_data_cost_only_where_an_fsync_flushes_them() {
        let mut counts = IoCounts {
            write_extents: 100,
            ..IoCounts::default()
        };
        let target = FsCost {
            per_op_us: PerClass::default(),
            flush_extent_us: 300.0,
        };
        let base = cost(PerClass::default());
        assert_eq!(extra_ns(&counts, &target, &base), 0.0);
        counts.fsyncs = 1;
        assert_eq!(extra_ns(&counts, &target, &base), 100.0 * 300.0 * 1e3);
    }

    #[test]
    fn the_published_slowdowns_are_the_studys() {
        assert_eq!(PUBLISHED_EFS[0].slowdown().round(), 18.0);
        assert_eq!(PUBLISHED_EFS[1].slowdown().round(), 99.0);
    }

    #[test]
    fn error_is_relative_to_the_measurement() {
        let p = Prediction {
            target: "efs-sim".into(),
            profile: "lmdb".into(),
            scenario: "suite".into(),
            baseline_ns: 1.0,
            predicted_ns: 90.0,
            measured_ns: Some(100.0),
        };
        assert!((p.error().unwrap() + 0.1).abs() < 1e-12);
    }
}
