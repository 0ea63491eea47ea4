//! Exploring crash states: at every crash point of a log, a bounded, seeded sample of the
//! states a model allows, each written to a directory and handed to a checker (for
//! crash-test: reopen the store, check every acknowledged root, commit once more).
//!
//! A state is named by its crash point (how many logged operations happened before the crash)
//! and its sample number at that point; with the seed they rebuild it exactly
//! ([`StateId`]). For each kind of violation the one with the fewest operations before it is
//! kept: the smallest reproducing trace.

use std::fs;
use std::io;
use std::path::Path;

use super::kind::CrashModel;
use super::oplog::{LoadedLog, LogOp};
use super::points::PointPlan;
use super::replay::Replay;
use super::rng::SplitMix64;

/// How many operations before the crash point a trace shows.
const TRACE_LEN: usize = 12;

/// One crash state: `point` operations happened, then sample `sample` of what survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateId {
    /// Operations of the log before the crash.
    pub point: usize,
    /// The sample at that point (0 for the deterministic clean cut).
    pub sample: u32,
}

impl std::fmt::Display for StateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.point, self.sample)
    }
}

impl std::str::FromStr for StateId {
    type Err = String;

    fn from_str(s: &str) -> Result<StateId, String> {
        let bad = || format!("bad state `{s}`: give POINT:SAMPLE, such as 41:3");
        let (p, n) = s.split_once(':').ok_or_else(bad)?;
        Ok(StateId {
            point: p.parse().map_err(|_| bad())?,
            sample: n.parse().map_err(|_| bad())?,
        })
    }
}

/// What a checker found wrong with one state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// A short kind (`lost`, `corrupt`, `unopenable`, `no-further-commit`): violations are
    /// grouped by it.
    pub kind: String,
    /// What exactly.
    pub detail: String,
}

/// A violation: the state, what failed, and how the state came about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The state.
    pub id: StateId,
    /// What the checker found.
    pub failure: Failure,
    /// How the state differs from a clean cut ([`super::CrashState::describe`]).
    pub state: String,
    /// The last operations before the crash point, oldest first.
    pub trace: Vec<String>,
}

/// An exploration's counts and its smallest violation of each kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exploration {
    /// Crash points visited.
    pub crash_points: u64,
    /// States materialised and checked.
    pub states: u64,
    /// States the checker failed.
    pub violations: u64,
    /// Acknowledged labels (marks) checked over all states.
    pub marks_checked: u64,
    /// Per kind of failure, the violation with the fewest operations before it.
    pub smallest: Vec<Violation>,
}

/// The state `id` of `log` under `model` with `seed`: the random stream it is drawn from.
pub fn state_rng(seed: u64, id: StateId) -> SplitMix64 {
    SplitMix64::derive(seed, ((id.point as u64) << 20) ^ u64::from(id.sample))
}

/// Explores `log` under `model`: at each crash point `plan` selects, `samples` states (one for
/// the clean cut, which has no choice to make), or only `only`. Each state is written into `dir` (emptied
/// first; it must be a directory of the caller's, nothing else's) and `check` gets the
/// directory and the marks logged before the crash point. `progress` hears (states, violations)
/// after each state.
///
/// # Errors
/// `dir` cannot be emptied or a state cannot be written.
#[allow(clippy::too_many_arguments)] // each is one knob of the exploration; a struct would only rename them
pub fn explore(
    log: &LoadedLog,
    model: CrashModel,
    samples: u32,
    seed: u64,
    plan: PointPlan,
    only: Option<StateId>,
    dir: &Path,
    mut check: impl FnMut(&Path, &[String]) -> Result<(), Failure>,
    mut progress: impl FnMut(u64, u64),
) -> io::Result<Exploration> {
    let replay = Replay::new(log);
    let per_point = if model == CrashModel::Clean {
        1
    } else {
        samples.max(1)
    };
    let ids: Vec<StateId> = match only {
        Some(id) => vec![id],
        None => plan
            .select(log, seed)
            .into_iter()
            .flat_map(|point| (0..per_point).map(move |sample| StateId { point, sample }))
            .collect(),
    };
    let mut out = Exploration::default();
    let mut last_point = None;
    for id in ids {
        if last_point != Some(id.point) {
            out.crash_points += 1;
            last_point = Some(id.point);
        }
        let state = replay.sample(id.point, model, &mut state_rng(seed, id));
        empty_dir(dir)?;
        state.materialise(dir)?;
        let marks = log.marks_before(id.point);
        out.states += 1;
        out.marks_checked += marks.len() as u64;
        if let Err(failure) = check(dir, &marks) {
            out.violations += 1;
            let known = out
                .smallest
                .iter_mut()
                .find(|v| v.failure.kind == failure.kind);
            let smaller = known.as_ref().is_none_or(|v| id.point < v.id.point);
            if smaller {
                let violation = Violation {
                    id,
                    failure,
                    state: state.describe(),
                    trace: trace(&log.ops, id.point),
                };
                match known {
                    Some(v) => *v = violation,
                    None => out.smallest.push(violation),
                }
            }
        }
        progress(out.states, out.violations);
    }
    Ok(out)
}

/// The last [`TRACE_LEN`] operations before `point`, described.
fn trace(ops: &[LogOp], point: usize) -> Vec<String> {
    let point = point.min(ops.len());
    ops[point.saturating_sub(TRACE_LEN)..point]
        .iter()
        .map(LogOp::describe)
        .collect()
}

/// Removes everything in `dir`, never following a symlink.
fn empty_dir(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if fs::symlink_metadata(&path)?.is_dir() {
            fs::remove_dir_all(&path)?;
        } else {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::oplog::LogOp;

    /// A toy store that writes its commit marker file before its data is synced: a commit is
    /// "acknowledged" once `marker` says so, but `data` may not hold it.
    fn marker_before_data() -> LoadedLog {
        let mut log = LoadedLog::default();
        log.push(
            LogOp::Create {
                path: "data".into(),
            },
            None,
        );
        log.push(
            LogOp::Create {
                path: "marker".into(),
            },
            None,
        );
        log.push(
            LogOp::FsyncDir {
                path: String::new(),
            },
            None,
        );
        for n in 1..=3u8 {
            let w = |p: &str, at: u64| LogOp::Write {
                path: p.into(),
                offset: at,
                len: 0,
                data_at: 0,
            };
            log.push(w("data", u64::from(n - 1)), Some(&[n]));
            log.push(w("marker", 0), Some(&[n]));
            log.push(
                LogOp::Fsync {
                    path: "marker".into(),
                },
                None,
            );
            log.push(
                LogOp::Mark {
                    label: n.to_string(),
                },
                None,
            );
            log.push(
                LogOp::Fsync {
                    path: "data".into(),
                },
                None,
            );
        }
        log
    }

    fn toy_check(dir: &Path, marks: &[String]) -> Result<(), Failure> {
        let data = fs::read(dir.join("data")).unwrap_or_default();
        for m in marks {
            let n: u8 = m.parse().unwrap();
            if data.get(usize::from(n - 1)) != Some(&n) {
                return Err(Failure {
                    kind: "lost".into(),
                    detail: format!("commit {n}"),
                });
            }
        }
        Ok(())
    }

    #[test]
    fn exploration_finds_the_planted_bug_and_reruns_its_smallest_state() {
        let log = marker_before_data();
        let dir = tempfile::tempdir().unwrap();
        let found = explore(
            &log,
            CrashModel::Clean,
            4,
            7,
            PointPlan::default(),
            None,
            dir.path(),
            toy_check,
            |_, _| {},
        )
        .unwrap();
        assert!(found.violations > 0, "{found:?}");
        let v = &found.smallest[0];
        assert_eq!(v.failure.kind, "lost");
        assert!(
            v.trace.iter().any(|t| t.starts_with("mark")),
            "{:?}",
            v.trace
        );
        let again = explore(
            &log,
            CrashModel::Clean,
            4,
            7,
            PointPlan::default(),
            Some(v.id),
            dir.path(),
            toy_check,
            |_, _| {},
        )
        .unwrap();
        assert_eq!((again.states, again.violations), (1, 1));
        assert_eq!(
            "9:2".parse::<StateId>().unwrap(),
            StateId {
                point: 9,
                sample: 2
            }
        );
    }

    /// A toy store that replaces its file by unlinking it and renaming the new one in (not a
    /// rename over it): between the unlink and the rename no file holds commit 1, a moment
    /// only a point between two syncs sees.
    fn unlink_then_rename() -> LoadedLog {
        let mut log = LoadedLog::default();
        let w = |p: &str| LogOp::Write {
            path: p.into(),
            offset: 0,
            len: 0,
            data_at: 0,
        };
        log.push(
            LogOp::Create {
                path: "data".into(),
            },
            None,
        );
        log.push(w("data"), Some(&[1]));
        log.push(
            LogOp::Fsync {
                path: "data".into(),
            },
            None,
        );
        log.push(
            LogOp::FsyncDir {
                path: String::new(),
            },
            None,
        );
        log.push(LogOp::Mark { label: "1".into() }, None);
        log.push(LogOp::Create { path: "tmp".into() }, None);
        log.push(w("tmp"), Some(&[1, 2]));
        log.push(LogOp::Fsync { path: "tmp".into() }, None);
        log.push(
            LogOp::Unlink {
                path: "data".into(),
            },
            None,
        );
        log.push(
            LogOp::Rename {
                from: "tmp".into(),
                to: "data".into(),
            },
            None,
        );
        log.push(
            LogOp::FsyncDir {
                path: String::new(),
            },
            None,
        );
        log.push(LogOp::Mark { label: "2".into() }, None);
        log
    }

    #[test]
    fn only_points_between_syncs_find_a_file_missing_between_unlink_and_rename() {
        let log = unlink_then_rename();
        let dir = tempfile::tempdir().unwrap();
        let run = |plan| {
            explore(
                &log,
                CrashModel::Clean,
                1,
                3,
                plan,
                None,
                dir.path(),
                toy_check,
                |_, _| {},
            )
            .unwrap()
        };
        assert_eq!(run(PointPlan::default()).violations, 0);
        let between = run(PointPlan {
            between: 8,
            ..PointPlan::default()
        });
        assert_eq!(between.violations, 1, "{between:?}");
        assert_eq!(between.smallest[0].id.point, 9, "right after the unlink");
    }
}
