//! The `field` step: one of the field's published workloads (Firewood's, IAVL-bench's, Merk's) on a
//! profile, its timed commits' rate and latency printed and written as `field.json`; for
//! `merk` with a `merk-runner` given, Merk's own code on the same commits after ours, its
//! RocksDB store in `DIR/merk` (a temporary directory without `--dir`), recorded beside ours.

use std::path::PathBuf;
use std::time::Instant;

use triebench_kv::BackendSpec;
use triebench_measure::field_run::{FieldPlan, FieldRun};
use triebench_merkle::TABLES;
use triebench_record::field::FieldResult;
use triebench_record::file::write_json;
use triebench_workloads::field::FieldWorkload;

use crate::error::PlanError;
use crate::step::field_merk::{merk_side, within_run, MerkDir};

/// What to run, where, and where the result goes.
#[derive(Debug, Clone)]
pub struct FieldOptions {
    /// The workload's name (`firewood-create`, `firewood-tenkrandom`, `firewood-zipf`,
    /// `firewood-single`, `iavl-bank`, `merk`).
    pub workload: String,
    /// The triebench profile.
    pub profile: String,
    /// The store's directory for file-backed profiles.
    pub dir: Option<PathBuf>,
    /// The workload's scale.
    pub scale: u64,
    /// The seed.
    pub seed: u64,
    /// Where the JSON result goes (`env.json` beside it), when asked for.
    pub out: Option<PathBuf>,
    /// Where the result is saved for a run's report too
    /// ([`triebench_record::layout::field_dir`]), when asked for.
    pub run_record: Option<PathBuf>,
    /// `merk-runner`, to run Merk's own code on the same commits after ours (`merk` only).
    pub merk_runner: Option<PathBuf>,
}

/// Runs the workload, printing progress every few seconds on standard error and a summary
/// line on standard output; writes the JSON result when asked.
pub fn field(options: &FieldOptions) -> Result<FieldResult, PlanError> {
    let workload: FieldWorkload = options.workload.parse().map_err(
        |e: triebench_workloads::field::UnknownFieldWorkload| PlanError::Usage(e.to_string()),
    )?;
    if let Some(out) = &options.out {
        triebench_measure::outputs::writable_file("--out", out).map_err(PlanError::Measure)?;
    }
    if let Some(dir) = &options.dir {
        std::fs::create_dir_all(dir).map_err(|source| PlanError::Write {
            path: dir.clone(),
            source,
        })?;
    }
    let spec = BackendSpec::parse(&options.profile, options.dir.clone())?;
    let merk = match (&options.merk_runner, workload) {
        (None, _) => None,
        (Some(runner), FieldWorkload::Merk) => {
            Some((runner, MerkDir::new(options.dir.as_deref())?))
        }
        (Some(_), other) => {
            return Err(PlanError::Usage(format!(
                "--merk-runner is for --workload merk, not {other}"
            )))
        }
    };
    let mut last = Instant::now();
    let started = Instant::now();
    let mut progress = |done: u64, timed: bool| {
        if last.elapsed().as_secs() >= 2 {
            last = Instant::now();
            eprintln!(
                "field {workload} on {}: {done} commits ({}, {:.0} s)",
                options.profile,
                if timed { "timed" } else { "setup" },
                started.elapsed().as_secs_f64()
            );
        }
    };
    let run = FieldRun {
        plan: FieldPlan {
            workload,
            scale: options.scale,
            seed: options.seed,
        },
        profile: options.profile.clone(),
        progress: &mut progress,
    };
    let mut result = spec.open(TABLES, run)?.map_err(PlanError::Measure)?;
    println!(
        "{} on {} (scale {}): {} commits after {} setup commits, {:.1} commits/s, {:.0} leaves/s, \
         commit p50 {:.0} µs p99 {:.0} µs; final root {}",
        result.workload,
        result.profile,
        result.scale,
        result.commits,
        result.setup_commits,
        result.commits_per_s,
        result.leaves_per_s,
        result.commit.p50_us,
        result.commit.p99_us,
        result.final_root
    );
    let kinds = [
        ("inserts", result.inserts_per_s),
        ("updates", result.updates_per_s),
        ("reads", result.reads_per_s),
    ];
    let per_kind: Vec<String> = kinds
        .iter()
        .filter_map(|(kind, rate)| rate.map(|r| format!("{r:.0} {kind}/s")))
        .collect();
    if !per_kind.is_empty() {
        println!(
            "{} on {}: {}",
            result.workload,
            result.profile,
            per_kind.join(", ")
        );
    }
    if let Some((runner, dir)) = &merk {
        let side = merk_side(runner, dir, &result)?;
        println!(
            "{}: {:.0} inserts/s, {:.0} updates/s, {:.0} reads/s ({} reads, each checked); \
             ours ÷ Merk's: inserts {}, updates {}, reads {}; Merk's root {}, {} bytes on disk",
            side.described(),
            side.inserts_per_s,
            side.updates_per_s,
            side.reads_per_s,
            side.reads_checked,
            within_run(result.inserts_per_s, side.inserts_per_s),
            within_run(result.updates_per_s, side.updates_per_s),
            within_run(result.reads_per_s, side.reads_per_s),
            side.final_root,
            side.bytes_on_disk
        );
        result.merk = Some(side);
    }
    drop(merk);
    if let Some(path) = &options.run_record {
        write_json(path, "field result", &result)?;
        eprintln!("field: saved for the run's report in {}", path.display());
    }
    if let Some(out) = &options.out {
        write_json(out, "field result", &result)?;
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            super::grow::write_env(dir)?;
        }
    }
    Ok(result)
}
