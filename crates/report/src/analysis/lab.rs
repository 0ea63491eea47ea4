//! The filesystem lab's analysis: the slowdowns the I/O profile predicts for each run (from its
//! sidecar's measured costs) and for real AWS EFS (from its published latencies).

use crate::analysis::predict::{predict, FsCost, Prediction, PUBLISHED_EFS_COST};
use crate::model::bench_id::BenchKey;
use crate::model::fs::FsInfo;
use crate::model::io_profile::IoProfileFile;
use crate::model::results::ResultSet;

/// The prediction target for real AWS EFS from its published latencies.
pub const AWS_EFS: &str = "aws-efs (published latencies)";

/// What the run's filesystem charges, from its sidecar's probes (`None` when not probed).
pub fn fs_cost(fs: &FsInfo) -> Option<FsCost> {
    Some(FsCost {
        per_op_us: fs.latency_us?,
        flush_extent_us: fs.flush_extent_us.unwrap_or(0.0),
    })
}

/// Predicts every scenario × profile the baseline measured, on every other run whose sidecar
/// has latencies (with that run's measurement beside it) and on AWS EFS; empty when the
/// baseline has no latencies.
pub fn predictions(results: &ResultSet, io: &IoProfileFile) -> Vec<Prediction> {
    let Some(baseline) = results.baseline() else {
        return Vec::new();
    };
    let Some(base_lat) = baseline.fs.as_ref().and_then(fs_cost) else {
        return Vec::new();
    };
    let mut targets: Vec<(String, _, Option<&str>)> = results.runs[1..]
        .iter()
        .filter_map(|r| {
            let lat = r.fs.as_ref().and_then(fs_cost)?;
            Some((r.name.clone(), lat, Some(r.name.as_str())))
        })
        .collect();
    targets.push((AWS_EFS.to_string(), PUBLISHED_EFS_COST, None));
    let mut out = Vec::new();
    for scenario in results.scenario_names() {
        let group = format!("scenario/{scenario}");
        for profile in results.scenario_profiles() {
            let key = BenchKey::new(&group, Some(&profile), None);
            let Some(base) = baseline.benches.get(&key) else {
                continue;
            };
            let baseline_ns = base.mean.point;
            for (target, lat, run) in &targets {
                let Some(predicted_ns) =
                    predict(io, &profile, &scenario, baseline_ns, lat, &base_lat)
                else {
                    continue;
                };
                let measured_ns = run
                    .and_then(|run| results.get(run, &key))
                    .map(|m| m.mean.point);
                out.push(Prediction {
                    target: target.clone(),
                    profile: profile.clone(),
                    scenario: scenario.clone(),
                    baseline_ns,
                    predicted_ns,
                    measured_ns,
                });
            }
        }
    }
    out
}
