//! Reads one side of `triebench compare` (or the input of `triebench export`) into a [`Side`]:
//!
//! - `criterion:NAME`: the baseline NAME of a criterion directory (`cargo bench -- --save-baseline
//!   NAME`), every sample;
//! - a run folder (`triebench export-run`, a `manifest.json` beside `criterion/`): its runs;
//! - a result folder (`triebench report`, a `ratios.json`): each run's means, no samples;
//! - any other directory: a criterion directory, every saved baseline but criterion's own
//!   `new` and `base`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::ReportError;
use crate::model::bench_id::BenchKey;
use crate::model::side::{Side, SideBench, SideRun, SideSource};
use crate::read::criterion_reader::CriterionIndex;
use triebench_record::run_folder::CRITERION;
use triebench_record::run_folder::MANIFEST;

/// The prefix naming one criterion baseline: `criterion:NAME`.
pub const CRITERION_PREFIX: &str = "criterion:";

/// Baselines criterion manages itself; a criterion directory's side leaves them out.
const CRITERION_OWN: [&str; 2] = ["new", "base"];

/// Reads `spec` (see the module docs); `criterion_dir` is where `criterion:NAME` looks
/// (default: where criterion writes, [`crate::default_criterion_dir`]).
pub fn read_side(spec: &str, criterion_dir: Option<&Path>) -> Result<Side, ReportError> {
    if let Some(name) = spec.strip_prefix(CRITERION_PREFIX) {
        let dir = criterion_dir
            .map(Path::to_path_buf)
            .unwrap_or_else(crate::default_criterion_dir);
        let index = CriterionIndex::open(&dir)?;
        if !index.has_baseline(name) {
            return Err(ReportError::BaselineNotFound {
                name: name.to_string(),
                dir,
                available: index.baselines(),
            });
        }
        return Ok(Side {
            label: spec.to_string(),
            source: SideSource::Criterion,
            runs: vec![criterion_run(&index, name)?],
        });
    }
    let path = Path::new(spec);
    if !path.is_dir() {
        return Err(ReportError::File {
            path: path.to_path_buf(),
            reason: "not a directory: give a result folder (with ratios.json), a run folder \
                     (with manifest.json), a criterion directory, or criterion:NAME"
                .into(),
        });
    }
    let runs = if path.join(RATIOS).is_file() {
        return Ok(Side {
            label: spec.to_string(),
            source: SideSource::ResultFolder,
            runs: result_folder_runs(&path.join(RATIOS))?,
        });
    } else if path.join(MANIFEST).is_file() {
        criterion_runs(&path.join(CRITERION))?
    } else {
        criterion_runs(path)?
    };
    if runs.is_empty() {
        return Err(ReportError::File {
            path: path.to_path_buf(),
            reason: "it holds no saved criterion baseline (and no ratios.json)".into(),
        });
    }
    Ok(Side {
        label: spec.to_string(),
        source: SideSource::Criterion,
        runs,
    })
}

/// The name of a result folder's ratios file.
const RATIOS: &str = "ratios.json";

/// The `ratios.json` layout this reads: `render::ratio_files::SCHEMA_VERSION` (a later stage, so not
/// imported here; a test of `render::dashboard_export` checks that the two agree).
pub const RATIOS_SCHEMA_VERSION: u32 = 1;

fn criterion_runs(dir: &Path) -> Result<Vec<SideRun>, ReportError> {
    let index = CriterionIndex::open(dir)?;
    index
        .baselines()
        .iter()
        .filter(|b| !CRITERION_OWN.contains(&b.as_str()))
        .map(|b| criterion_run(&index, b))
        .collect()
}

fn criterion_run(index: &CriterionIndex, name: &str) -> Result<SideRun, ReportError> {
    let benches = index
        .load_all(name)?
        .into_iter()
        .filter_map(|(key, m)| {
            let mean_ns = if m.per_iter_ns.is_empty() {
                m.mean.point
            } else {
                m.per_iter_ns.iter().sum::<f64>() / m.per_iter_ns.len() as f64
            };
            mean_ns.is_finite().then_some({
                (
                    key,
                    SideBench {
                        mean_ns,
                        mean_ci_ns: Some((m.mean.lower, m.mean.upper)),
                        per_iter_ns: m.per_iter_ns,
                    },
                )
            })
        })
        .collect();
    Ok(SideRun {
        name: name.to_string(),
        benches,
    })
}

/// The fields of a `ratios.json` row a side needs (any schema version 1 file has them).
#[derive(Deserialize)]
struct Row {
    comparison: String,
    group: String,
    function: Option<String>,
    value: Option<String>,
    run: String,
    reference_run: String,
    mean_ns: Option<f64>,
    reference_mean_ns: Option<f64>,
}

#[derive(Deserialize)]
struct RatiosFile {
    schema_version: u32,
    runs: Vec<String>,
    rows: Vec<Row>,
}

fn result_folder_runs(file: &Path) -> Result<Vec<SideRun>, ReportError> {
    let bad = |reason: String| ReportError::File {
        path: file.to_path_buf(),
        reason,
    };
    let text = triebench_record::copy_tree::read_text(file).map_err(|e| bad(e.to_string()))?;
    let parsed: RatiosFile =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a ratios.json: {e}")))?;
    if parsed.schema_version != RATIOS_SCHEMA_VERSION {
        return Err(bad(format!(
            "schema_version {} is not {RATIOS_SCHEMA_VERSION} (a newer triebench wrote it?)",
            parsed.schema_version,
        )));
    }
    let mut by_run: BTreeMap<String, BTreeMap<BenchKey, SideBench>> = BTreeMap::new();
    let mut put = |run: &str, key: &BenchKey, mean_ns: Option<f64>| {
        if let Some(mean_ns) = mean_ns.filter(|m| m.is_finite() && *m > 0.0) {
            by_run
                .entry(run.to_string())
                .or_default()
                .entry(key.clone())
                .or_insert(SideBench {
                    mean_ns,
                    mean_ci_ns: None,
                    per_iter_ns: Vec::new(),
                });
        }
    };
    for row in &parsed.rows {
        let key = BenchKey::new(&row.group, row.function.as_deref(), row.value.as_deref());
        put(&row.run, &key, row.mean_ns);
        if row.comparison == "slowdown_vs_baseline" {
            put(&row.reference_run, &key, row.reference_mean_ns);
        }
    }
    let mut runs: Vec<SideRun> = Vec::new();
    for name in parsed.runs {
        if let Some(benches) = by_run.remove(&name) {
            runs.push(SideRun { name, benches });
        }
    }
    runs.extend(
        by_run
            .into_iter()
            .map(|(name, benches)| SideRun { name, benches }),
    );
    Ok(runs)
}
