//! What a report lacks: absent runs, cells no run measured, expected benchmarks nobody ran,
//! runs without a filesystem sidecar. Listed in report.md's Missing section and ratios.json.

use serde::{Deserialize, Serialize};

use crate::model::bench_id::{BenchKey, FLOOR_FSYNC, FLOOR_SHA512, SCENARIOS, SUITE};
use crate::model::results::ResultSet;
use triebench_record::vocabulary::PROFILES;

/// What kind of thing is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingKind {
    /// A requested run (criterion baseline) does not exist.
    Run,
    /// A run did not measure a benchmark that a table has a cell for.
    Cell,
    /// A backend profile no run measured.
    Profile,
    /// A scenario (or the suite) no run measured.
    Scenario,
    /// A floor benchmark a run did not measure.
    Floor,
    /// A run without its `triebench-runs/NAME.json` filesystem sidecar.
    FsInfo,
}

/// One missing thing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingItem {
    /// What kind of thing.
    pub kind: MissingKind,
    /// The run concerned, if one.
    pub run: Option<String>,
    /// The benchmark (full id), profile or scenario concerned, if one.
    pub what: Option<String>,
    /// A sentence for the report.
    pub detail: String,
}

/// Everything `results` lacks, in report order.
pub fn find(results: &ResultSet) -> Vec<MissingItem> {
    let mut out = Vec::new();
    for run in results.runs.iter().filter(|r| !r.present) {
        out.push(MissingItem {
            kind: MissingKind::Run,
            run: Some(run.name.clone()),
            what: None,
            detail: format!(
                "run `{}` not found in criterion's output (saved baselines: {})",
                run.name,
                results.available.join(", ")
            ),
        });
    }
    let present: Vec<&str> = results
        .runs
        .iter()
        .filter(|r| r.present)
        .map(|r| r.name.as_str())
        .collect();
    let scenarios = results.scenario_names();
    let profiles = results.scenario_profiles();
    let mut cells: Vec<BenchKey> = Vec::new();
    for scenario in &scenarios {
        for profile in &profiles {
            cells.push(BenchKey::new(
                &format!("scenario/{scenario}"),
                Some(profile),
                None,
            ));
        }
    }
    for (_, keys) in results.other_groups() {
        cells.extend(keys);
    }
    for key in &cells {
        for run in &present {
            if results.get(run, key).is_none() {
                out.push(MissingItem {
                    kind: MissingKind::Cell,
                    run: Some((*run).to_string()),
                    what: Some(key.full_id()),
                    detail: format!("`{}` not measured on run `{run}`", key.full_id()),
                });
            }
        }
    }
    for floor in [FLOOR_FSYNC, FLOOR_SHA512] {
        let key = BenchKey::new("floor", Some(floor), None);
        for run in &present {
            if results.get(run, &key).is_none() {
                out.push(MissingItem {
                    kind: MissingKind::Floor,
                    run: Some((*run).to_string()),
                    what: Some(key.full_id()),
                    detail: format!("floor `{}` not measured on run `{run}`", key.full_id()),
                });
            }
        }
    }
    let measured = results.all_profiles();
    for p in PROFILES {
        if !measured.contains(p.name) {
            out.push(MissingItem {
                kind: MissingKind::Profile,
                run: None,
                what: Some(p.name.to_string()),
                detail: format!(
                    "profile `{}` not measured in any run (its feature `{}` may not have been built)",
                    p.name,
                    p.feature.unwrap_or("none")
                ),
            });
        }
    }
    for s in std::iter::once(SUITE).chain(SCENARIOS) {
        if !scenarios.iter().any(|x| x == s) {
            out.push(MissingItem {
                kind: MissingKind::Scenario,
                run: None,
                what: Some(s.to_string()),
                detail: format!("scenario `scenario/{s}` not measured in any run"),
            });
        }
    }
    for run in results.runs.iter().filter(|r| r.present && r.fs.is_none()) {
        out.push(MissingItem {
            kind: MissingKind::FsInfo,
            run: Some(run.name.clone()),
            what: None,
            detail: format!(
                "run `{}` has no filesystem sidecar (triebench-runs/{}.json): its filesystem is \
                 unknown; record it with `triebench capture-fs {} DIR`",
                run.name, run.name, run.name
            ),
        });
    }
    out
}
