//! Our field and SmallBank figures beside the published ones: one row per run and anchor, the
//! ratio ours ÷ theirs. A SmallBank run's first row is Transact's own code measured in the same
//! run (the record's `transact` side), not a quote; a `merk` run that ran Merk's own code (the
//! record's `merk` side) has its inserts/s, updates/s and reads/s first, each ratio within the
//! run. Workloads with no anchor keep a row with
//! the reason; anchors no run here stands beside are listed on their own.

use crate::model::anchors::{Anchor, AnchorFile, Metric};
use crate::model::field_runs::{FieldResult, FieldRuns, Found, MerkSide, SmallbankResult};

/// What one of our figures is set beside.
#[derive(Debug, Clone, PartialEq)]
pub enum Against {
    /// A published figure.
    Quoted(Anchor),
    /// The anchor's own code, measured in the same run on the same machine.
    SameRun {
        /// What ran.
        engine: String,
        /// Its figure, in our unit.
        figure: f64,
    },
    /// No figure: why.
    Nothing {
        /// Whose workload it is, when known.
        engine: Option<String>,
        /// Why there is none.
        reason: String,
    },
}

/// One of our runs beside one anchor.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Our workload (`iavl-bank`, `smallbank`, ...).
    pub workload: String,
    /// The folder the run record was found in (`tmpfs`, `disk`, `.`).
    pub folder: String,
    /// The triebench profile.
    pub profile: String,
    /// Our figure in `unit` (`None`: the record has no such figure).
    pub ours: Option<f64>,
    /// Our figure's unit.
    pub unit: &'static str,
    /// What it is set beside.
    pub against: Against,
    /// Ours ÷ theirs, where both are figures.
    pub ratio: Option<f64>,
}

/// The section's content.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Published {
    /// Our runs beside their anchors, in workload, folder, profile order.
    pub rows: Vec<Row>,
    /// Published figures no run here stands beside (no workload of ours, or none run).
    pub not_compared: Vec<Anchor>,
}

fn field_figure(record: &FieldResult, metric: Metric) -> Option<f64> {
    match metric {
        Metric::LeavesPerS => Some(record.leaves_per_s),
        Metric::CommitsPerS => Some(record.commits_per_s),
        Metric::InsertsPerS => record.inserts_per_s,
        Metric::UpdatesPerS => record.updates_per_s,
        Metric::ReadsPerS => record.reads_per_s,
        Metric::TransactionsPerS => None,
    }
}

/// Merk's own code's figure in `metric`, measured in the same run.
fn merk_figure(side: &MerkSide, metric: Metric) -> Option<f64> {
    match metric {
        Metric::InsertsPerS => Some(side.inserts_per_s),
        Metric::UpdatesPerS => Some(side.updates_per_s),
        Metric::ReadsPerS => Some(side.reads_per_s),
        Metric::LeavesPerS | Metric::CommitsPerS | Metric::TransactionsPerS => None,
    }
}

fn smallbank_figure(record: &SmallbankResult, metric: Metric) -> Option<f64> {
    match metric {
        Metric::TransactionsPerS => Some(record.triebench.transactions_per_s),
        Metric::LeavesPerS
        | Metric::CommitsPerS
        | Metric::InsertsPerS
        | Metric::UpdatesPerS
        | Metric::ReadsPerS => None,
    }
}

fn ratio(ours: Option<f64>, theirs: f64) -> Option<f64> {
    ours.filter(|o| o.is_finite() && theirs > 0.0)
        .map(|o| o / theirs)
}

/// The rows of one of our workloads' runs against the anchors listed for it.
fn quoted<'a>(
    anchors: &'a AnchorFile,
    workload: &str,
) -> impl Iterator<Item = (&'a Anchor, Metric)> + 'a {
    let workload = workload.to_string();
    anchors.anchors.iter().filter_map(move |a| {
        (a.ours.as_deref() == Some(workload.as_str()))
            .then_some(a.metric)
            .flatten()
            .map(|m| (a, m))
    })
}

fn nothing(anchors: &AnchorFile, workload: &str) -> Against {
    match anchors.unsourced.iter().find(|u| u.ours == workload) {
        Some(u) => Against::Nothing {
            engine: Some(u.engine.clone()),
            reason: u.reason.clone(),
        },
        None => Against::Nothing {
            engine: None,
            reason: "no published figure is listed for this workload".into(),
        },
    }
}

/// A row of field run `found`: our figure in `unit` beside `against`, the ratio where both
/// are figures.
fn field_row(
    found: &Found<FieldResult>,
    ours: Option<f64>,
    unit: &'static str,
    against: Against,
) -> Row {
    let theirs = match &against {
        Against::Quoted(anchor) => Some(anchor.figure),
        Against::SameRun { figure, .. } => Some(*figure),
        Against::Nothing { .. } => None,
    };
    Row {
        workload: found.record.workload.clone(),
        folder: found.folder.clone(),
        profile: found.record.profile.clone(),
        ours,
        unit,
        ratio: theirs.and_then(|t| ratio(ours, t)),
        against,
    }
}

/// Sets every run in `runs` beside its anchors in `anchors`.
pub fn compare(runs: &FieldRuns, anchors: &AnchorFile) -> Published {
    let mut rows = Vec::new();
    for found in &runs.field {
        let r = &found.record;
        if let Some(side) = &r.merk {
            for metric in [Metric::InsertsPerS, Metric::UpdatesPerS, Metric::ReadsPerS] {
                let Some(theirs) = merk_figure(side, metric) else {
                    continue;
                };
                let against = Against::SameRun {
                    engine: side.described(),
                    figure: theirs,
                };
                rows.push(field_row(
                    found,
                    field_figure(r, metric),
                    metric.unit(),
                    against,
                ));
            }
        }
        let mut any = false;
        for (anchor, metric) in quoted(anchors, &r.workload) {
            any = true;
            let against = Against::Quoted(anchor.clone());
            rows.push(field_row(
                found,
                field_figure(r, metric),
                metric.unit(),
                against,
            ));
        }
        if !any {
            let against = nothing(anchors, &r.workload);
            rows.push(field_row(
                found,
                Some(r.commits_per_s),
                Metric::CommitsPerS.unit(),
                against,
            ));
        }
    }
    for found in &runs.smallbank {
        let r = &found.record;
        // A run of another family (Transact's command family) has Transact beside it in the
        // same run, and no published figure of its shape.
        let workload = r.family.clone();
        let ours = Some(r.triebench.transactions_per_s);
        rows.push(Row {
            workload: workload.clone(),
            folder: found.folder.clone(),
            profile: r.profile.clone(),
            ours,
            unit: Metric::TransactionsPerS.unit(),
            against: Against::SameRun {
                engine: transact_side(&r.transact_state),
                figure: r.transact.transactions_per_s,
            },
            ratio: ratio(ours, r.transact.transactions_per_s),
        });
        if workload != "smallbank" {
            continue;
        }
        for (anchor, metric) in quoted(anchors, "smallbank") {
            let ours = smallbank_figure(r, metric);
            rows.push(Row {
                workload: "smallbank".into(),
                folder: found.folder.clone(),
                profile: r.profile.clone(),
                ours,
                unit: metric.unit(),
                against: Against::Quoted(anchor.clone()),
                ratio: ratio(ours, anchor.figure),
            });
        }
    }
    let ran = |w: &str| {
        runs.field.iter().any(|f| f.record.workload == w)
            || runs.smallbank.iter().any(|s| s.record.family == w)
    };
    let not_compared = anchors
        .anchors
        .iter()
        .filter(|a| a.ours.as_deref().is_none_or(|w| !ran(w)))
        .cloned()
        .collect();
    Published { rows, not_compared }
}

/// How a SmallBank record's Transact side is named: its in-memory `MerkleState` in the same
/// process, or the durable state `transact-runner` ran block by block beside it.
fn transact_side(state: &str) -> String {
    match state.strip_prefix("transact-0.4.7:") {
        Some("btree") => "Transact 0.4.7 `MerkleState` (in memory), same process".into(),
        Some(profile) => {
            format!("Transact 0.4.7 on `{profile}` (transact-runner, block by block in turn)")
        }
        None => format!("Transact `{state}`"),
    }
}
