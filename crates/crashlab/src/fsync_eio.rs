//! Fsync `EIO` (`--fsync-eio`): records one workload without faults to count its fsyncs, then
//! a second with the fsync in the middle of it failing (slowfs's `--fail-fsync N`), and reports
//! what the failing commit returned, whether the store refused later commits or carried on,
//! and whether any acknowledged root is lost in a crash after the failure.

use std::path::{Path, PathBuf};

use triebench_kv::Profile;
use triebench_record::crash_models::{CrashModelsFile, FsyncEioRun};
use triebench_slowfs::model::{explore, CrashModel, LogOp, PointPlan, StateId};

use crate::error::CrashError;
use crate::folders::Folders;
use crate::recording::{check_state, record_round, OPEN_NOTE};
use crate::round::adopt_orphans;

/// Where the fsync-EIO run goes.
#[derive(Debug, Clone)]
pub struct FsyncEioOptions {
    /// The backend profile.
    pub profile: Profile,
    /// The folder whose `crash-models.json` the run is merged into (checked before the run).
    pub out: Option<PathBuf>,
    /// The seed the workload derives from; `None`: from the clock.
    pub seed: Option<u64>,
    /// Commits in the workload (at least 4 are made).
    pub commits: u64,
}

/// Fails one fsync in the middle of a workload and returns what the store did; the caller
/// shows it, then saves it with [`save_fsync_eio`]. Progress goes to stderr.
///
/// # Errors
/// A folder or result file that cannot be used, a recording that fails, a workload with no
/// fsync to fail, a crash state that cannot be written.
pub fn fsync_eio(
    options: &FsyncEioOptions,
    folders: &dyn Folders,
) -> Result<FsyncEioRun, CrashError> {
    let profile = options.profile;
    if let Some(out) = &options.out {
        crate::results::check::<CrashModelsFile>(folders, out)?;
    }
    adopt_orphans();
    let seed = crate::seed::or_clock(options.seed);
    let round_seed = crate::seed::round_seeds(seed, 1)[0];
    let commits = options.commits.max(4);
    // A dry run counts the fsync-family calls and finds the first one after half the commits.
    let dry = record_round(profile, commits, round_seed, &[])?;
    let mut fsyncs = 0u64;
    let mut marks = 0u64;
    let mut nth = None;
    for op in &dry.log.ops {
        match op {
            LogOp::Mark { label } if label != OPEN_NOTE => marks += 1,
            LogOp::Mark { .. } => {}
            op if op.is_fsync_call() => {
                fsyncs += 1;
                if marks >= commits / 2 && nth.is_none() {
                    nth = Some(fsyncs);
                }
            }
            _ => {}
        }
    }
    drop(dry);
    let nth = nth.ok_or_else(|| CrashError::NoFsyncToFail(profile.name().to_string()))?;
    let flag = nth.to_string();
    let rec = record_round(profile, commits, round_seed, &["--fail-fsync", &flag])?;
    let failed_at = rec
        .log
        .ops
        .iter()
        .position(|op| matches!(op, LogOp::FsyncFailed { .. } | LogOp::Fault { .. }));
    // The commit running when the fsync failed: the one after the marks logged before it.
    let marks_before = failed_at.map_or(0, |i| rec.log.marks_before(i).len());
    let first_error = rec.outcomes.iter().position(Result::is_err);
    let commit_reported_failure = first_error == Some(marks_before);
    let after = first_error.map_or(marks_before + 1, |e| e + 1);
    let refused_after = rec
        .outcomes
        .iter()
        .skip(after)
        .filter(|o| o.is_err())
        .count() as u64;
    let acknowledged_after = rec
        .outcomes
        .iter()
        .skip(after)
        .filter(|o| o.is_ok())
        .count() as u64;
    // Crash states after the failure (clean cut: only what the failed fsync lost is lost).
    let dir = rec.mount.mountpoint().to_path_buf();
    let mut states = 0;
    let mut lost = 0u64;
    let mut first_loss = None;
    if let Some(failed) = failed_at {
        let points: Vec<usize> = triebench_slowfs::model::crash_points(&rec.log)
            .into_iter()
            .filter(|&p| p > failed)
            .collect();
        for point in points {
            let found = explore(
                &rec.log,
                CrashModel::Clean,
                1,
                round_seed,
                PointPlan::default(),
                Some(StateId { point, sample: 0 }),
                &dir,
                |dir, roots| check_state(profile, dir, &rec.backing, roots, round_seed),
                |_, _| {},
            )
            .map_err(CrashError::WriteState)?;
            states += found.states;
            if let Some(v) = found.smallest.first() {
                lost += 1;
                first_loss.get_or_insert_with(|| {
                    format!(
                        "crash after {} ops: {}: {}",
                        point, v.failure.kind, v.failure.detail
                    )
                });
            }
        }
    }
    let run = FsyncEioRun {
        profile: profile.name().to_string(),
        failed_fsync: nth,
        commits,
        commit_reported_failure,
        error: first_error.and_then(|i| rec.outcomes[i].clone().err()),
        refused_after,
        acknowledged_after,
        acknowledged_lost: lost,
        states,
        first_loss,
    };
    Ok(run)
}

/// Merges the run into `out`'s `crash-models.json` and rewrites `crash-models.md` and
/// `env.json`.
///
/// # Errors
/// A folder or result file that cannot be made, read or written.
pub fn save_fsync_eio(
    folders: &dyn Folders,
    out: &Path,
    run: &FsyncEioRun,
) -> Result<(), CrashError> {
    crate::models_file::save(folders, out, |file| file.merge_eio(run.clone()))
}
