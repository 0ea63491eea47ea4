//! Engines side by side, analysed: per engine and profile on a filesystem, which part of a
//! commit's time is the backend's (above the same engine on the in-memory `btree` store, which
//! is nearly the engine's own format and hashing alone) and how the engine compares with our
//! trie on the same profile.

use crate::model::engines::{EngineResult, EnginesRun};

/// The in-memory profile an engine's own cost is read from.
pub const ENGINE_ONLY_PROFILE: &str = "btree";

/// The engine whose figures the others are divided by.
pub const BASE_ENGINE: &str = "trie";

/// One engine on one profile and filesystem, with what the analysis derives.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineRow<'a> {
    /// The filesystem's name.
    pub fs: &'a str,
    /// What was measured.
    pub result: &'a EngineResult,
    /// `update`'s median commit on this profile less the same engine's on `btree` (same
    /// filesystem run), µs: the backend's part; `None` without a `btree` result.
    pub backend_update_us: Option<f64>,
    /// That part as a share of this profile's median commit (0 to 1; negative when `btree`
    /// was the slower, which is noise).
    pub backend_update_share: Option<f64>,
    /// The same for the fill's median commit.
    pub backend_fill_share: Option<f64>,
    /// `update`'s median commit ÷ the trie's on the same profile and filesystem.
    pub update_vs_trie: Option<f64>,
    /// Bytes on disk per leaf ÷ the trie's on the same profile and filesystem.
    pub disk_vs_trie: Option<f64>,
}

fn find<'a>(run: &'a EnginesRun, engine: &str, profile: &str) -> Option<&'a EngineResult> {
    run.record
        .results
        .iter()
        .find(|r| r.engine == engine && r.profile == profile)
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0 && a.is_finite()).then(|| a / b)
}

/// Every result of `runs`, in the runs' order and each run's, with its derived figures.
pub fn rows(runs: &[EnginesRun]) -> Vec<EngineRow<'_>> {
    let mut out = Vec::new();
    for run in runs {
        for r in &run.record.results {
            let own = find(run, &r.engine, ENGINE_ONLY_PROFILE);
            let base = find(run, BASE_ENGINE, &r.profile);
            let backend = |p50: f64, own_p50: f64| (p50 - own_p50, ratio(p50 - own_p50, p50));
            let update = own.map(|o| backend(r.update.commit.p50_us, o.update.commit.p50_us));
            let fill = own
                .filter(|o| o.fill.commits > 0 && r.fill.commits > 0)
                .map(|o| backend(r.fill.commit.p50_us, o.fill.commit.p50_us));
            out.push(EngineRow {
                fs: &run.fs,
                result: r,
                backend_update_us: update.map(|u| u.0),
                backend_update_share: update.and_then(|u| u.1),
                backend_fill_share: fill.and_then(|f| f.1),
                update_vs_trie: base
                    .and_then(|b| ratio(r.update.commit.p50_us, b.update.commit.p50_us)),
                disk_vs_trie: base
                    .and_then(|b| ratio(r.disk_bytes_per_leaf, b.disk_bytes_per_leaf)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::engines::{CommitFigures, EnginesRecord};
    use triebench_record::grow::Latency;

    fn result(engine: &str, profile: &str, update_p50: f64, disk: f64) -> EngineResult {
        EngineResult {
            engine: engine.into(),
            profile: profile.into(),
            update: CommitFigures {
                commits: 1001,
                commit: Latency {
                    p50_us: update_p50,
                    ..Latency::default()
                },
                ..CommitFigures::default()
            },
            disk_bytes_per_leaf: disk,
            ..EngineResult::default()
        }
    }

    #[test]
    fn the_backend_part_is_above_the_same_engine_on_btree() {
        let runs = [EnginesRun {
            fs: "tmpfs".into(),
            record: EnginesRecord {
                results: vec![
                    result("trie", "btree", 100.0, 0.0),
                    result("trie", "lmdb", 400.0, 2000.0),
                    result("jmt", "btree", 50.0, 0.0),
                    result("jmt", "lmdb", 100.0, 500.0),
                ],
                ..EnginesRecord::default()
            },
        }];
        let rows = rows(&runs);
        let jmt_lmdb = &rows[3];
        assert_eq!(jmt_lmdb.backend_update_us, Some(50.0));
        assert_eq!(jmt_lmdb.backend_update_share, Some(0.5));
        assert_eq!(jmt_lmdb.update_vs_trie, Some(0.25));
        assert_eq!(jmt_lmdb.disk_vs_trie, Some(0.25));
        assert_eq!(rows[1].backend_update_share, Some(0.75));
        // btree's disk is 0: no ratio rather than a division by zero.
        assert_eq!(rows[2].disk_vs_trie, None);
        // No fill was run: no fill share.
        assert_eq!(rows[1].backend_fill_share, None);
    }
}
