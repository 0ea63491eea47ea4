//! The `headline` step: every scenario and the suite on every profile, on one filesystem, with
//! samples taken within runs, each profile's storage floor, and the small benchmarks (fsync and
//! SHA-512 floors, a phase span's cost); saved as the run's record, which `report` reads like a
//! criterion baseline.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use triebench_measure::cpu_idle::{self, CpuIdleGuard};
use triebench_measure::headline_run::{self, Plan, ProfileHeadline};
use triebench_measure::headline_samples::mean_and_half_width;
use triebench_measure::host_load::HostLoadSampler;
use triebench_measure::profile_choice::chosen_profiles;
use triebench_measure::trie_warm_up::warm_trie;
use triebench_measure::{headline_record, micro_run};
use triebench_record::net::NetRecord;
use triebench_record::{Benchmark, CpuIdle, RunRecord};
use triebench_workloads::Scenario;

use crate::error::PlanError;

/// What to measure, where, and where the record goes.
#[derive(Debug, Clone)]
pub struct HeadlineOptions {
    /// Directory on the filesystem under test (fresh store directories are made in it).
    pub dir: PathBuf,
    /// The run (filesystem) name the results are saved as.
    pub run: String,
    /// Backend profile names (empty: every profile built in).
    pub profiles: Vec<String>,
    /// Criterion's output directory, where the run record goes.
    pub criterion_dir: PathBuf,
    /// Seconds each profile may take, set-up included (the first round is taken whatever it
    /// costs).
    pub budget: f64,
    /// Most rounds per profile.
    pub max_rounds: usize,
    /// What idle CPUs do while measuring.
    pub cpu_idle: CpuIdle,
    /// The emulated network hop to managed servers, recorded with the results.
    pub net: Option<NetRecord>,
}

/// One line per profile: the suite's mean with its 95% interval, samples, runs and time taken.
fn describe(h: &ProfileHeadline) -> String {
    let Some(suite) = h.suite() else {
        return format!("headline: {}: no suite", h.profile);
    };
    let Some((mean, half)) = mean_and_half_width(suite) else {
        return format!("headline: {}: no samples", h.profile);
    };
    format!(
        "headline: {:<20} suite {:>10.3} ms ± {:>4.1}% ({} samples; update run {}x) in {:.1} s",
        h.profile.name(),
        mean / 1e6,
        100.0 * half / mean.max(1.0),
        suite.samples.len(),
        h.runs_of(Scenario::Update),
        h.wall.as_secs_f64()
    )
}

/// Prints one line for a small benchmark (mean with its 95% interval), then adds it to
/// `record` and rewrites the record, so that a run failing later keeps it.
fn save_small(
    benchmark: Benchmark,
    record: &mut RunRecord,
    criterion_dir: &Path,
) -> Result<(), PlanError> {
    if let Some((mean, half)) = mean_and_half_width(&benchmark) {
        eprintln!(
            "headline: {:<28} {:>12.1} ns ± {:>4.1}%",
            benchmark.id(),
            mean,
            100.0 * half / mean.max(1e-9)
        );
    }
    record.benchmarks.push(benchmark);
    headline_record::write(record, criterion_dir)?;
    Ok(())
}

/// Takes the headline of `args.run` and writes its run record
/// (`<criterion-dir>/triebench-runs/records/<run>/headline.json`) and CPU idle record.
pub fn headline(args: &HeadlineOptions) -> Result<(), PlanError> {
    triebench_record::layout::validate_run_name(&args.run)?;
    let Some(budget) = (args.budget >= 0.0)
        .then(|| Duration::try_from_secs_f64(args.budget).ok())
        .flatten()
    else {
        return Err(PlanError::Usage(format!(
            "--budget {} is not a number of seconds a run can take",
            args.budget
        )));
    };
    // Made before the profiles are checked against it (as root, a store directory's parent is
    // inspected) and before the first probe writes in it.
    triebench_measure::make_dir::make_dir("--dir", &args.dir)?;
    let profiles = chosen_profiles(&args.profiles, &args.dir)?;
    let criterion_dir = args.criterion_dir.clone();
    let plan = Plan {
        budget,
        max_rounds: args.max_rounds,
    };
    // Fail before minutes of measuring, not after, when the results cannot be saved.
    triebench_measure::outputs::writable_dir("--criterion-dir", &criterion_dir)?;
    let start = Instant::now();
    eprintln!(
        "headline: {} profile(s) on {} (run '{}'), up to {:.0} s each",
        profiles.len(),
        args.dir.display(),
        args.run,
        args.budget
    );
    // Held until the last measurement is taken; dropping it lifts the bound.
    let idle = CpuIdleGuard::hold(args.cpu_idle);
    eprintln!("headline: {}", idle.record().describe());
    cpu_idle::save(&criterion_dir, &args.run, idle.record())?;
    let mut record = headline_record::new_record(&args.run, &args.dir, idle.record());
    record.net = args.net.clone();
    // How busy the machine is, stretch by stretch (the small benchmarks, then each profile),
    // saved in the record with each stretch's results, for the report to state beside them.
    let mut load = HostLoadSampler::start();
    // First, before anything in this process listens to the phase spans.
    for benchmark in micro_run::collect(&args.dir)? {
        save_small(benchmark, &mut record, &criterion_dir)?;
    }
    let warm = warm_trie(&args.dir)?;
    load.mark("floors");
    record.host_load = Some(load.load().clone());
    let mut failure = None;
    headline_run::collect(&warm, &args.dir, &profiles, plan, |h| {
        eprintln!("{}", describe(h));
        load.mark(h.profile.name());
        record.host_load = Some(load.load().clone());
        record.benchmarks.extend(h.benchmarks.iter().cloned());
        if let Err(e) = headline_record::write(&record, &criterion_dir) {
            failure = failure.take().or(Some(e));
        }
    })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    // Last: once the collector has listened, spans cost more in this process.
    save_small(
        micro_run::collect_with_collector(),
        &mut record,
        &criterion_dir,
    )?;
    let path = headline_record::write(&record, &criterion_dir)?;
    println!(
        "headline: {} benchmarks saved as run '{}' in {} ({:.0} s)",
        record.benchmarks.len(),
        args.run,
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
