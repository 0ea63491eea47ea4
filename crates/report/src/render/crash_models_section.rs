//! The "Crash states explored" section: per durable profile and crash model (clean, metadata,
//! reordered, torn), the states `triebench crash-test --model` explored, the violations, the
//! smallest reproducer's rerun command; then what an injected fsync `EIO` did to each profile.
//! From `crash-models.json`, summed up by [`crate::analysis::crash_models`].

use crate::analysis::crash_models::{rows, ENOUGH_STATES};
use crate::model::crash_models::CrashModelsFile;
use crate::render::table::{esc, header, row};

/// Appends the section to `out` when crash-state explorations exist.
pub fn render(out: &mut String, file: Option<&CrashModelsFile>) {
    let Some(file) = file else { return };
    if file.runs.is_empty() && file.fsync_eio.is_empty() {
        return;
    }
    out.push_str("\n## Crash states explored\n\n");
    out.push_str(&table(file));
}

/// The tables with their explanation.
pub fn table(file: &CrashModelsFile) -> String {
    let mut out = String::from(
        "`triebench crash-test --model` records a short workload's operations on a slowfs mount \
         and rebuilds the states a crash could leave under each crash model: `clean` (unsynced \
         writes undone whole), `metadata` (names survive only after a directory fsync), \
         `reordered` (any subset of unsynced writes), `torn` (any subset, each write possibly \
         torn at the sector size), at every sync-family call and at sampled points between. \
         Each state is reopened: every acknowledged root must open, read back and recompute, \
         and one more commit must succeed; a state that fails is a *violation*.\n\n",
    );
    if !file.runs.is_empty() {
        out.push_str(&header(&[
            "profile".into(),
            "model".into(),
            "rounds × commits".into(),
            "crash points".into(),
            "states".into(),
            "violations".into(),
            "smallest violation (round, state)".into(),
            "rerun".into(),
        ]));
        let rows = rows(file);
        for r in &rows {
            out.push_str(&row(&[
                format!("`{}`", esc(&r.profile)),
                esc(&r.model),
                format!("{} × {}", r.rounds, r.commits),
                r.crash_points.to_string(),
                if r.enough {
                    r.states.to_string()
                } else {
                    format!("{} (under {ENOUGH_STATES})", r.states)
                },
                if r.violations == 0 {
                    "**0**".into()
                } else {
                    r.violations.to_string()
                },
                if r.kinds.is_empty() {
                    "–".into()
                } else {
                    esc(&r.kinds.join("; "))
                },
                r.rerun
                    .as_ref()
                    .map_or("–".into(), |c| format!("`{}`", esc(c))),
            ]));
        }
    }
    if !file.fsync_eio.is_empty() {
        out.push_str(
            "\nA failing fsync (`--fsync-eio`): one fsync-family call in the middle of the \
             workload returns `EIO`.\n\n",
        );
        out.push_str(&header(&[
            "profile".into(),
            "failed fsync".into(),
            "commit reported it".into(),
            "error".into(),
            "later commits refused / acknowledged".into(),
            "crash states after it losing an acknowledged root".into(),
        ]));
        for r in &file.fsync_eio {
            out.push_str(&row(&[
                format!("`{}`", esc(&r.profile)),
                format!("#{}", r.failed_fsync),
                if r.commit_reported_failure {
                    "yes".into()
                } else {
                    "**no**".into()
                },
                r.error.as_deref().map_or("–".into(), esc),
                format!("{} / {}", r.refused_after, r.acknowledged_after),
                format!("{} of {}", r.acknowledged_lost, r.states),
            ]));
        }
    }
    out
}
