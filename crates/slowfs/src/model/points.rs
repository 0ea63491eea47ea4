//! Which crash points an exploration visits: every sync-family call (the moment with the most
//! pending, [`crash_points`]) and, between two of them, a bounded, seeded sample of the moments
//! right after a write, truncation or name change, from a chosen operation on.
//!
//! A point between syncs is where a half-finished step of the store is on disk: a commit marker
//! written before the data it names, a rename not yet followed by its directory fsync. Each gap
//! between two sync points offers the points after each of its data or name operations; up to
//! [`PointPlan::between`] of them are drawn without replacement by a generator derived from the
//! seed and the gap's first operation, so the same seed visits the same points. A cap
//! ([`PointPlan::most`]) keeps a seeded sample of the selected points, for a quick look at a
//! backend whose every state is slow to check (a database server started on each).

use super::oplog::{LoadedLog, LogOp};
use super::replay::crash_points;
use super::rng::SplitMix64;

/// The crash points to visit in a log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PointPlan {
    /// Points sampled between two consecutive sync points (0: sync points only).
    pub between: u32,
    /// No point before this many operations (a store's creation that is not under test, such
    /// as a database server's bootstrap).
    pub from: usize,
    /// At most this many points, drawn (seeded, without replacement) from those selected and
    /// kept in order (0: no cap).
    pub most: usize,
}

/// Whether a crash right after `op` may leave something a sync point does not show.
fn changes_state(op: &LogOp) -> bool {
    op.is_metadata() || matches!(op, LogOp::Write { .. } | LogOp::SetLen { .. })
}

impl PointPlan {
    /// The points of `log`, ascending: the sync points at or after [`PointPlan::from`] and up
    /// to [`PointPlan::between`] sampled points in each gap before them.
    pub fn select(&self, log: &LoadedLog, seed: u64) -> Vec<usize> {
        let syncs = crash_points(log);
        let mut out = Vec::new();
        let mut gap_start = 0usize;
        for &sync in &syncs {
            if self.between > 0 {
                // Point k = k operations done: after op k-1, before the sync at `sync`.
                let mut candidates: Vec<usize> = (gap_start.max(1)..sync)
                    .filter(|&k| changes_state(&log.ops[k - 1]))
                    .collect();
                let mut rng = SplitMix64::derive(seed ^ 0xB7E1_5162_8AED_2A6A, gap_start as u64);
                let take = (self.between as usize).min(candidates.len());
                for i in 0..take {
                    let j = i + rng.below((candidates.len() - i) as u64) as usize;
                    candidates.swap(i, j);
                }
                out.extend_from_slice(&candidates[..take]);
            }
            out.push(sync);
            gap_start = sync + 1;
        }
        out.retain(|&p| p >= self.from);
        out.sort_unstable();
        out.dedup();
        if self.most > 0 && out.len() > self.most {
            let mut rng = SplitMix64::derive(seed ^ 0x2545_F491_4F6C_DD1D, out.len() as u64);
            for i in 0..self.most {
                let j = i + rng.below((out.len() - i) as u64) as usize;
                out.swap(i, j);
            }
            out.truncate(self.most);
            out.sort_unstable();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> LoadedLog {
        let mut log = LoadedLog::default();
        let w = |p: &str| LogOp::Write {
            path: p.into(),
            offset: 0,
            len: 0,
            data_at: 0,
        };
        log.push(LogOp::Create { path: "a".into() }, None); // 0
        log.push(w("a"), Some(b"x")); // 1
        log.push(w("a"), Some(b"y")); // 2
        log.push(LogOp::Mark { label: "m".into() }, None); // 3
        log.push(LogOp::Fsync { path: "a".into() }, None); // 4
        log.push(w("a"), Some(b"z")); // 5
        log.push(LogOp::Fsync { path: "a".into() }, None); // 6
        log
    }

    #[test]
    fn sync_points_only_by_default_and_sampled_points_between_with_a_bound() {
        let log = log();
        assert_eq!(PointPlan::default().select(&log, 1), vec![4, 6, 7]);
        // Everything between: after ops 0, 1, 2 (not the mark, 3) and after 5.
        let all = PointPlan {
            between: 10,
            ..PointPlan::default()
        };
        assert_eq!(all.select(&log, 1), vec![1, 2, 3, 4, 6, 7]);
        let one = PointPlan {
            between: 1,
            ..PointPlan::default()
        };
        let picked = one.select(&log, 9);
        assert_eq!(picked.len(), 4, "{picked:?}");
        assert_eq!(
            picked,
            one.select(&log, 9),
            "the same seed, the same points"
        );
        let later = PointPlan {
            between: 10,
            from: 5,
            ..PointPlan::default()
        };
        assert_eq!(later.select(&log, 1), vec![6, 7]);
    }

    #[test]
    fn a_cap_keeps_a_seeded_ordered_sample_of_the_selected_points() {
        let log = log();
        let all = PointPlan {
            between: 10,
            ..PointPlan::default()
        };
        let capped = PointPlan { most: 3, ..all };
        let every = all.select(&log, 5);
        let picked = capped.select(&log, 5);
        assert_eq!(picked.len(), 3, "{picked:?}");
        assert!(picked.windows(2).all(|w| w[0] < w[1]), "{picked:?}");
        assert!(picked.iter().all(|p| every.contains(p)), "{picked:?}");
        assert_eq!(
            picked,
            capped.select(&log, 5),
            "the same seed, the same points"
        );
        let samples: std::collections::HashSet<Vec<usize>> =
            (0..20).map(|seed| capped.select(&log, seed)).collect();
        assert!(samples.len() > 1, "the sample depends on the seed");
        let loose = PointPlan { most: 100, ..all };
        assert_eq!(
            loose.select(&log, 5),
            every,
            "a cap above the count keeps all"
        );
    }
}
