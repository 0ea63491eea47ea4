//! `failover.json`: what `triebench crash-test --failover` found per profile with a standby:
//! each round's acknowledged and lost commits after the primary was killed and the standby
//! promoted, and how far the last acknowledgement came before the kill (the loss window in
//! time). The crash lab writes it through [`crate::results`] (merging runs
//! into one file per folder).

use serde::{Deserialize, Serialize};

/// The file name `triebench crash-test --failover --out DIR` writes in DIR.
pub const FAILOVER_FILE: &str = "failover.json";

/// One failover round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailoverRound {
    /// Milliseconds from the first commit to the kill of the primary.
    pub crash_after_ms: u64,
    /// Commits acknowledged (their `commit` returned) before the primary died.
    pub acknowledged: u64,
    /// Acknowledged commits missing on the promoted standby.
    pub lost: u64,
    /// How many of the newest acknowledged commits were missing (the loss window in commits).
    pub lost_tail: u64,
    /// Acknowledged roots found damaged on the promoted standby.
    pub corrupt: u64,
    /// Microseconds from the last acknowledgement to the kill (`None`: nothing acknowledged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_ack_to_kill_us: Option<u64>,
    /// Microseconds from the acknowledgement of the oldest lost commit to the kill: the loss
    /// window in time (`None`: nothing lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_window_us: Option<u64>,
    /// Milliseconds from the kill to a store open on the promoted standby (the old connection
    /// dropped, the standby promoted, a new connection made).
    pub failover_ms: u64,
}

/// Every failover round of one profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailoverRun {
    /// Backend profile name.
    pub profile: String,
    /// What the profile promises of a failover (`keeps-acked`, `loses-lag`).
    pub promised: String,
    /// Rounds run.
    pub rounds: u64,
    /// Commits acknowledged over all rounds.
    pub acknowledged: u64,
    /// Acknowledged commits lost over all rounds.
    pub lost: u64,
    /// Acknowledged roots found damaged over all rounds.
    pub corrupt: u64,
    /// Rounds that lost at least one acknowledged commit.
    pub rounds_with_loss: u64,
    /// The largest loss window in commits of any round.
    pub max_lost_tail: u64,
    /// The largest loss window in time of any round, microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lost_window_us: Option<u64>,
    /// The emulated network between the store and the primary (`--net-rtt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<crate::net::NetRecord>,
    /// The emulated network between the primary and the standby: `--standby-rtt`, else
    /// `--net-rtt`'s; absent when the standby connected straight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standby_link: Option<crate::net::NetRecord>,
    /// The seed the rounds derive from.
    pub seed: u64,
    /// Each round.
    pub per_round: Vec<FailoverRound>,
}

/// The whole `failover.json`: one run per profile and network setting.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FailoverFile {
    /// Format version.
    pub schema: u32,
    /// Each run; a newer run of the same profile and network replaces the older.
    pub runs: Vec<FailoverRun>,
}

impl FailoverFile {
    /// Adds `run`, replacing an earlier run of the same profile and network settings; runs
    /// stay ordered by profile name, then round trips.
    pub fn merge(&mut self, run: FailoverRun) {
        self.schema = 1;
        let rtt = |r: &FailoverRun| {
            (
                r.net.as_ref().map(|n| n.rtt_us),
                r.standby_link.as_ref().map(|n| n.rtt_us),
            )
        };
        self.runs
            .retain(|r| !(r.profile == run.profile && rtt(r) == rtt(&run)));
        self.runs.push(run);
        self.runs.sort_by(|a, b| {
            a.profile.cmp(&b.profile).then(
                rtt(a)
                    .partial_cmp(&rtt(b))
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
        });
    }
}
