//! The filesystem lab in a report: the I/O profile (`io-profile.json`, written by `triebench
//! io-profile` beside the run sidecars) and the slowdowns it predicts for each run and for real
//! AWS EFS.

use std::path::Path;

use super::bench_id::BenchKey;
use super::error::ReportError;
use super::fs_info::FsInfo;
use super::fs_info::SIDECAR_DIR;
use super::results::ResultSet;
use crate::iolab::predict::{predict, FsCost, Prediction, PUBLISHED_EFS_COST};
use crate::iolab::{io_profile, IoProfileFile};

/// The prediction target for real AWS EFS from its published latencies.
pub const AWS_EFS: &str = "aws-efs (published latencies)";

/// The I/O profile saved beside the run sidecars in `criterion_dir`, if any.
pub fn load_io_profile(criterion_dir: &Path) -> Result<Option<IoProfileFile>, ReportError> {
    let path = criterion_dir.join(SIDECAR_DIR).join(io_profile::FILE_NAME);
    IoProfileFile::load(&path).map_err(|e| ReportError::Sidecar {
        path,
        reason: e.to_string(),
    })
}

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

/// `io-profile.csv`: one line per profile × scenario with totals and per-commit figures.
pub fn io_profile_csv(io: &IoProfileFile) -> String {
    let mut out = String::from(
        "profile,scenario,commits,fsyncs,sync_ops,write_ops,write_extents,bytes_written,read_ops,\
         bytes_read,metadata_ops,fsyncs_per_commit,write_ops_per_commit,bytes_written_per_commit\n",
    );
    for r in &io.rows {
        let c = &r.counts;
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{:.1}\n",
            r.profile,
            r.scenario,
            r.commits,
            c.fsyncs,
            c.ops.sync,
            c.ops.write,
            c.write_extents,
            c.bytes_written,
            c.ops.read,
            c.bytes_read,
            c.ops.metadata,
            r.per_commit(c.fsyncs),
            r.per_commit(c.ops.write),
            r.per_commit(c.bytes_written),
        ));
    }
    out
}
