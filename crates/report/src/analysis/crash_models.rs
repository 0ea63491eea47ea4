//! Crash-state explorations summed up per profile and model: one row each, in the order of
//! the profile vocabulary and of the models from kindest to strictest, with the violation
//! kinds found and the one command that reruns the smallest of them.

use triebench_record::vocabulary::PROFILES;

use crate::model::crash_models::{CrashModelsFile, ModelRun};

/// The models from the kindest cut to the strictest (others sort after them, by name).
const MODEL_ORDER: [&str; 4] = ["clean", "metadata", "reordered", "torn"];

/// One profile under one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRow {
    /// Backend profile.
    pub profile: String,
    /// Crash model (`torn/512` keeps its sector size).
    pub model: String,
    /// Rounds × commits per round.
    pub rounds: u64,
    /// Commits per round.
    pub commits: u64,
    /// Crash points visited.
    pub crash_points: u64,
    /// States explored.
    pub states: u64,
    /// States that failed the check.
    pub violations: u64,
    /// Violation kinds found, with the state of the smallest of each (`lost (1, 133:1)`).
    pub kinds: Vec<String>,
    /// The command that reruns the smallest violation (the first kind's), if any.
    pub rerun: Option<String>,
    /// Seconds the exploration took (0 when the file predates the count).
    pub seconds: u64,
    /// Whether the exploration reached the bar of 1,000 states.
    pub enough: bool,
}

/// The fewest states a (profile, model) run needs to count as covered.
pub const ENOUGH_STATES: u64 = 1000;

fn model_rank(model: &str) -> (usize, String) {
    let base = model.split('/').next().unwrap_or(model);
    let i = MODEL_ORDER
        .iter()
        .position(|m| *m == base)
        .unwrap_or(MODEL_ORDER.len());
    (i, model.to_string())
}

fn profile_rank(profile: &str) -> (usize, String) {
    let i = PROFILES
        .iter()
        .position(|p| p.name == profile)
        .unwrap_or(PROFILES.len());
    (i, profile.to_string())
}

fn row(run: &ModelRun) -> ModelRow {
    ModelRow {
        profile: run.profile.clone(),
        model: run.model.clone(),
        rounds: run.rounds,
        commits: run.commits_per_round,
        crash_points: run.crash_points,
        states: run.states,
        violations: run.violations,
        kinds: run
            .smallest
            .iter()
            .map(|v| format!("{} ({}, {})", v.kind, v.round, v.state))
            .collect(),
        rerun: run.smallest.first().map(|v| v.rerun.clone()),
        seconds: run.seconds,
        enough: run.states >= ENOUGH_STATES,
    }
}

/// The rows of `file`, ordered by profile, then model.
pub fn rows(file: &CrashModelsFile) -> Vec<ModelRow> {
    let mut rows: Vec<ModelRow> = file.runs.iter().map(row).collect();
    rows.sort_by_key(|r| (profile_rank(&r.profile), model_rank(&r.model)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::crash_models::ModelViolation;

    fn run(profile: &str, model: &str, states: u64, violation: bool) -> ModelRun {
        ModelRun {
            profile: profile.into(),
            promised: "power-loss".into(),
            model: model.into(),
            mount_flags: String::new(),
            rounds: 2,
            commits_per_round: 24,
            states_per_point: 16,
            crash_points: 10,
            states,
            roots_checked: 0,
            violations: u64::from(violation) * 3,
            seed: 1,
            points_between: 2,
            max_points: 0,
            from_open: false,
            seconds: 9,
            smallest: if violation {
                vec![ModelViolation {
                    kind: "lost".into(),
                    detail: "1 of 2".into(),
                    round: 1,
                    state: "133:1".into(),
                    how: String::new(),
                    trace: Vec::new(),
                    rerun: "triebench crash-test --only-state 133:1".into(),
                }]
            } else {
                Vec::new()
            },
        }
    }

    #[test]
    fn rows_follow_the_profile_vocabulary_then_the_models_kindest_first() {
        let mut file = CrashModelsFile::default();
        file.merge(run("sqlite-rollback", "torn/512", 2000, false));
        file.merge(run("sqlite-rollback", "metadata", 1700, true));
        file.merge(run("lmdb", "reordered", 900, false));
        file.merge(run("lmdb", "clean", 1000, false));
        let rows = rows(&file);
        let order: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.profile.as_str(), r.model.as_str()))
            .collect();
        assert_eq!(
            order,
            vec![
                ("lmdb", "clean"),
                ("lmdb", "reordered"),
                ("sqlite-rollback", "metadata"),
                ("sqlite-rollback", "torn/512"),
            ]
        );
        assert!(rows[0].enough && !rows[1].enough);
        assert_eq!(rows[2].kinds, vec!["lost (1, 133:1)".to_string()]);
        assert_eq!(
            rows[2].rerun.as_deref(),
            Some("triebench crash-test --only-state 133:1")
        );
    }
}
