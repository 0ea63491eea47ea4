//! The field's published figures ("anchors") that the section "Against published figures" sets
//! our field and SmallBank runs beside: each as its authors published it (engine, workload,
//! figure and unit, hardware, source and date), and the workloads no sourced figure exists for,
//! with the reason. The list itself is data, `crates/report/anchors.json` (read by
//! `read::anchors`), so a figure is changed or added without touching code.

use serde::Deserialize;

/// Which figure of our run record an anchor stands beside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Leaves (inserts, updates, deletes) written per second of timed commits (field runs).
    LeavesPerS,
    /// Timed commits per second (field runs).
    CommitsPerS,
    /// Transactions per second, executing and committing (SmallBank runs).
    TransactionsPerS,
    /// Inserts per second of the timed insert-only commits (field runs: Merk's inserts).
    InsertsPerS,
    /// Updates per second of the timed update-only commits (field runs: Merk's updates).
    UpdatesPerS,
    /// Reads per second of the timed read batches (field runs: Merk's reads).
    ReadsPerS,
}

impl Metric {
    /// How the figure is named in the section's table.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::LeavesPerS => "leaves/s",
            Metric::CommitsPerS => "commits/s",
            Metric::TransactionsPerS => "tx/s",
            Metric::InsertsPerS => "inserts/s",
            Metric::UpdatesPerS => "updates/s",
            Metric::ReadsPerS => "reads/s",
        }
    }
}

/// One published figure, quoted as published.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// A short unique name (`iavl-v2-osmosis-bank`).
    pub id: String,
    /// The engine and version measured.
    pub engine: String,
    /// The workload as its authors describe it.
    pub workload: String,
    /// The triebench workload it stands beside (`iavl-bank`, `smallbank`, ...); `None` when no
    /// workload here runs it yet.
    pub ours: Option<String>,
    /// Which of our figures it is compared with (with `ours`).
    pub metric: Option<Metric>,
    /// The figure.
    pub figure: f64,
    /// Its unit as published (`leaves/s`, `transfers/s`).
    pub unit: String,
    /// The hardware it ran on, as published.
    pub hardware: String,
    /// Where it is published (an `https://` address, pinned to a commit where there is one).
    pub source: String,
    /// When it was published.
    pub date: String,
    /// What else the reader should know (what differs from ours).
    #[serde(default)]
    pub note: Option<String>,
}

/// A workload of ours with no sourced published figure, and why.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unsourced {
    /// The triebench workload.
    pub ours: String,
    /// Whose workload it is.
    pub engine: String,
    /// Why no figure is quoted.
    pub reason: String,
}

/// The whole list, as `anchors.json` holds it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorFile {
    /// What the file is (for its readers; not used).
    #[serde(default)]
    pub about: String,
    /// The published figures.
    pub anchors: Vec<Anchor>,
    /// The workloads left without one, with the reason.
    #[serde(default)]
    pub unsourced: Vec<Unsourced>,
}
