//! `crash-models.json` as the crash-state runs leave it: the lines a model run and an
//! fsync-EIO run are summed up in, and the markdown table saved beside the file.

use triebench_record::crash_models::{CrashModelsFile, FsyncEioRun, ModelRun};

use crate::error::CrashError;
use crate::folders::Folders;

/// The lines a model run is summed up in: the counts, then each smallest violation with its
/// trace and rerun command.
pub fn model_summary(run: &ModelRun) -> String {
    let mut out = format!(
        "{} (durability: {}), model {}: {} rounds of {} commits, {} crash points ({} between two syncs at most per gap{}{}), {} states explored, {} acknowledged roots checked, {} violations, {} s",
        run.profile,
        run.promised,
        run.model,
        run.rounds,
        run.commits_per_round,
        run.crash_points,
        run.points_between,
        if run.max_points > 0 {
            format!(", a sample of at most {} per round", run.max_points)
        } else {
            String::new()
        },
        if run.from_open {
            ", from the open store on"
        } else {
            ""
        },
        run.states,
        run.roots_checked,
        run.violations,
        run.seconds
    );
    for v in &run.smallest {
        out.push_str(&format!(
            "\n  {}: {} (round {}, state {}: {})\n    trace: {}\n    rerun: {}",
            v.kind,
            v.detail,
            v.round,
            v.state,
            v.how,
            v.trace.join(" | "),
            v.rerun
        ));
    }
    out
}

/// The line an fsync-EIO run is summed up in.
pub fn eio_summary(run: &FsyncEioRun) -> String {
    format!(
        "{}: fsync #{} of {} commits failed with EIO; the commit {}; afterwards {} commits refused, {} acknowledged; crash states after it with an acknowledged root lost: {} of {}{}",
        run.profile,
        run.failed_fsync,
        run.commits,
        match (&run.error, run.commit_reported_failure) {
            (Some(e), true) => format!("reported the failure ({e})"),
            (Some(e), false) => format!("succeeded, a later one failed ({e})"),
            (None, _) => "succeeded (the failure was not reported)".to_string(),
        },
        run.refused_after,
        run.acknowledged_after,
        run.acknowledged_lost,
        run.states,
        run.first_loss
            .as_ref()
            .map(|l| format!("; first: {l}"))
            .unwrap_or_default()
    )
}

/// Merges into DIR/crash-models.json (`add`), rewrites DIR/crash-models.md and DIR/env.json.
pub(crate) fn save(
    folders: &dyn Folders,
    out: &std::path::Path,
    add: impl FnOnce(&mut CrashModelsFile),
) -> Result<(), CrashError> {
    crate::results::save(folders, out, add, models_table)
}

/// The markdown table of a crash-models file: states and violations per profile and model,
/// then the fsync-EIO answers.
fn models_table(file: &CrashModelsFile) -> String {
    let mut out = String::from(
        "# Crash states explored per profile and model\n\n\
         | profile | model | rounds × commits | crash points | states | roots checked | violations | smallest violation |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in &file.runs {
        let smallest = r
            .smallest
            .iter()
            .map(|v| format!("{} (round {}, state {})", v.kind, v.round, v.state))
            .collect::<Vec<_>>()
            .join("; ");
        out.push_str(&format!(
            "| {} | {} | {} × {} | {} | {} | {} | {} | {} |\n",
            r.profile,
            r.model,
            r.rounds,
            r.commits_per_round,
            r.crash_points,
            r.states,
            r.roots_checked,
            r.violations,
            if smallest.is_empty() {
                "-".into()
            } else {
                smallest
            }
        ));
    }
    if !file.fsync_eio.is_empty() {
        out.push_str("\n# fsync EIO\n\n");
        for r in &file.fsync_eio {
            out.push_str(&format!("- {}\n", eio_summary(r)));
        }
    }
    out
}
