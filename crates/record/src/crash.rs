//! `crash.json`: what `triebench crash-test` found, per backend profile and crash mode, and the
//! totals over every run in the file. The crash lab writes it through [`crate::results`]
//! (merging runs into one file per folder); the report's "what each profile loses" section reads it.

use serde::{Deserialize, Serialize};

/// The file name `triebench crash-test --out DIR` writes in DIR.
pub const CRASH_FILE: &str = "crash.json";

/// How the store's process was stopped in a run.
pub const MODE_PROCESS: &str = "process-crash";
/// Power cut emulated by slowfs, then the process killed.
pub const MODE_POWER: &str = "power-loss";

/// One round's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrashRound {
    /// Milliseconds from the child's first commit to the crash.
    pub crash_after_ms: u64,
    /// Roots the child acknowledged this round.
    pub acknowledged: u64,
    /// Acknowledged roots gone after the crash.
    pub lost: u64,
    /// How many of the newest acknowledged roots were gone (the loss window).
    pub lost_tail: u64,
    /// Acknowledged roots that opened damaged.
    pub corrupt: u64,
    /// Whether the store failed to open at all after the crash.
    pub unopenable: bool,
}

/// Every round of one profile in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrashRun {
    /// Backend profile name.
    pub profile: String,
    /// What the profile promises per commit (`volatile`, `process-crash`, `power-loss`).
    pub promised: String,
    /// [`MODE_PROCESS`] or [`MODE_POWER`].
    pub mode: String,
    /// Rounds run.
    pub rounds: u64,
    /// Roots acknowledged over all rounds.
    pub acknowledged: u64,
    /// Acknowledged roots lost over all rounds.
    pub lost: u64,
    /// Acknowledged roots found damaged, plus stores that no longer opened.
    pub corrupt: u64,
    /// Rounds in which at least one acknowledged root was lost.
    pub rounds_with_loss: u64,
    /// The largest loss window of any round.
    pub max_lost_tail: u64,
    /// Leftover processes found (and killed) after a round: should be 0.
    pub leftover_processes: u64,
    /// The first damage seen, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_corruption: Option<String>,
    /// The emulated network to the managed server (`--net-rtt`), when the run had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<crate::net::NetRecord>,
    /// What this mode does not cover, stated with the result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<String>,
    /// The seed the run's rounds derive from.
    pub seed: u64,
    /// Each round.
    pub per_round: Vec<CrashRound>,
}

/// The whole `crash.json`: totals over the runs, and each run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrashFile {
    /// Format version.
    pub schema: u32,
    /// Rounds over all runs.
    pub rounds: u64,
    /// Acknowledged roots over all runs.
    pub acknowledged: u64,
    /// Lost roots over all runs.
    pub lost: u64,
    /// Corrupt roots and unopenable stores over all runs.
    pub corrupt: u64,
    /// Each (profile, mode) run; a newer run of the same pair replaces the older.
    pub runs: Vec<CrashRun>,
}

impl CrashFile {
    /// Adds `run`, replacing an earlier run of the same profile and mode, and recomputes the
    /// totals. Runs stay ordered by profile name, then mode.
    pub fn merge(&mut self, run: CrashRun) {
        self.schema = 1;
        self.runs
            .retain(|r| !(r.profile == run.profile && r.mode == run.mode));
        self.runs.push(run);
        self.runs
            .sort_by(|a, b| (&a.profile, &a.mode).cmp(&(&b.profile, &b.mode)));
        self.rounds = self.runs.iter().map(|r| r.rounds).sum();
        self.acknowledged = self.runs.iter().map(|r| r.acknowledged).sum();
        self.lost = self.runs.iter().map(|r| r.lost).sum();
        self.corrupt = self.runs.iter().map(|r| r.corrupt).sum();
    }

    /// The run of `profile` in `mode`, if present.
    pub fn run(&self, profile: &str, mode: &str) -> Option<&CrashRun> {
        self.runs
            .iter()
            .find(|r| r.profile == profile && r.mode == mode)
    }
}
