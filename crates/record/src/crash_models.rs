//! `crash-models.json`: what `triebench crash-test --model` found when it explored crash
//! states under a crash model (per backend profile and model), and what a failing fsync did to
//! each profile (`--fsync-eio`). The crash lab writes it through
//! [`crate::results`], merging runs into one file per folder.

use serde::{Deserialize, Serialize};

/// The file name `triebench crash-test --model ... --out DIR` writes in DIR.
pub const CRASH_MODELS_FILE: &str = "crash-models.json";

/// The smallest reproducing state of one kind of violation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelViolation {
    /// `lost`, `corrupt`, `unopenable` or `no-further-commit`.
    pub kind: String,
    /// What the check found.
    pub detail: String,
    /// The round (from 1) whose op log holds the state.
    pub round: u64,
    /// The state: `POINT:SAMPLE`.
    pub state: String,
    /// How the state differs from a clean cut.
    pub how: String,
    /// The last operations before the crash point.
    pub trace: Vec<String>,
    /// The one command that checks this state again.
    pub rerun: String,
}

/// One profile explored under one model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelRun {
    /// Backend profile name.
    pub profile: String,
    /// What the profile promises per commit.
    pub promised: String,
    /// The crash model (`clean`, `metadata`, `reordered`, `torn/512`).
    pub model: String,
    /// The slowfs mount flags the op logs were recorded with.
    pub mount_flags: String,
    /// Rounds (one recorded workload each).
    pub rounds: u64,
    /// Commits per round's workload.
    pub commits_per_round: u64,
    /// Sampled states per crash point (1 for `clean`).
    pub states_per_point: u64,
    /// Crash points visited over all rounds.
    pub crash_points: u64,
    /// States materialised and checked.
    pub states: u64,
    /// Acknowledged roots checked over all states.
    pub roots_checked: u64,
    /// States that failed the check.
    pub violations: u64,
    /// The seed everything derives from.
    pub seed: u64,
    /// Crash points sampled between two sync calls, per gap (0 in files from before they
    /// existed: sync calls only).
    #[serde(default)]
    pub points_between: u64,
    /// Crash points checked per round at most, a seeded sample of those selected (0: all; 0 in
    /// files from before the cap existed).
    #[serde(default)]
    pub max_points: u64,
    /// Whether crash points started only once the store was open (a server's bootstrap, such
    /// as PostgreSQL's `initdb`, not explored).
    #[serde(default)]
    pub from_open: bool,
    /// Wall-clock seconds the exploration took (recording included), on the machine in env.json.
    #[serde(default)]
    pub seconds: u64,
    /// The smallest violation of each kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub smallest: Vec<ModelViolation>,
}

/// What an injected fsync `EIO` did to one profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsyncEioRun {
    /// Backend profile name.
    pub profile: String,
    /// Which fsync-family call of the workload failed (counted from 1).
    pub failed_fsync: u64,
    /// Commits attempted.
    pub commits: u64,
    /// Whether the commit whose fsync failed reported the failure (`None`: no commit was
    /// running when it failed, e.g. a server's background fsync).
    pub commit_reported_failure: bool,
    /// The error the failing commit returned, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Commits after the failure that failed too (the store refuses).
    pub refused_after: u64,
    /// Commits after the failure acknowledged (the store carried on).
    pub acknowledged_after: u64,
    /// Acknowledged roots (before or after the failure) lost or damaged in a crash state after
    /// the failure: commits standing on data the failed fsync lost.
    pub acknowledged_lost: u64,
    /// States checked (crash points after the failure, clean cut).
    pub states: u64,
    /// The first such loss, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_loss: Option<String>,
}

/// The whole `crash-models.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashModelsFile {
    /// Format version.
    pub schema: u32,
    /// Each (profile, model) run; a newer run of the same pair replaces the older.
    #[serde(default)]
    pub runs: Vec<ModelRun>,
    /// Each profile's fsync-EIO run; a newer one replaces the older.
    #[serde(default)]
    pub fsync_eio: Vec<FsyncEioRun>,
}

impl CrashModelsFile {
    /// Adds `run`, replacing an earlier one of the same profile and model; ordered by profile,
    /// then model.
    pub fn merge(&mut self, run: ModelRun) {
        self.schema = 1;
        self.runs
            .retain(|r| !(r.profile == run.profile && r.model == run.model));
        self.runs.push(run);
        self.runs
            .sort_by(|a, b| (&a.profile, &a.model).cmp(&(&b.profile, &b.model)));
    }

    /// Adds an fsync-EIO run, replacing an earlier one of the same profile.
    pub fn merge_eio(&mut self, run: FsyncEioRun) {
        self.schema = 1;
        self.fsync_eio.retain(|r| r.profile != run.profile);
        self.fsync_eio.push(run);
        self.fsync_eio.sort_by(|a, b| a.profile.cmp(&b.profile));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(profile: &str, model: &str, states: u64) -> ModelRun {
        ModelRun {
            profile: profile.into(),
            promised: "power-loss".into(),
            model: model.into(),
            mount_flags: "--power-loss --op-log".into(),
            rounds: 1,
            commits_per_round: 8,
            states_per_point: 16,
            crash_points: 3,
            states,
            roots_checked: 10,
            violations: 0,
            seed: 1,
            points_between: 2,
            max_points: 0,
            from_open: false,
            seconds: 3,
            smallest: Vec::new(),
        }
    }

    #[test]
    fn a_newer_run_replaces_the_older_and_the_file_round_trips() {
        let mut file = CrashModelsFile::default();
        file.merge(run("sqlite", "torn/512", 1));
        file.merge(run("lmdb", "clean", 1));
        file.merge(run("lmdb", "clean", 2));
        assert_eq!(file.runs.len(), 2);
        assert_eq!(file.runs[0].states, 2);
        let text = serde_json::to_string(&file).unwrap();
        let back: CrashModelsFile = serde_json::from_str(&text).unwrap();
        assert_eq!(back, file);
    }
}
