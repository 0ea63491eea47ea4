//! The main job end to end: the options made into a plan, the plan printed, everything that
//! can be refused refused, then every step run and the time of each printed.

use std::path::PathBuf;
use std::time::Instant;

use triebench_kv::Profile;

use crate::describe::describe;
use crate::error::PlanError;
use crate::execute::{execute, times_table, Context};
use crate::preflight::preflight;
use crate::steps::{plan, Options};

/// What `triebench bench` was asked, resolved.
#[derive(Debug, Clone)]
pub struct MainJob {
    /// The options the plan is made from.
    pub options: Options,
    /// Criterion's output directory: every step's results, read by the report.
    pub criterion_dir: PathBuf,
    /// The checkout criterion's benches are built in, when it is still there.
    pub checkout: Option<PathBuf>,
    /// The host name run folders carry.
    pub host: String,
    /// Print the plan and stop.
    pub dry_run: bool,
}

/// Makes the plan, prints it, and (unless `dry_run`) checks and runs it.
pub fn run_main_job(job: &MainJob) -> Result<(), PlanError> {
    let start = Instant::now();
    let enabled: Vec<String> = Profile::enabled()
        .into_iter()
        .map(|p| p.name().to_string())
        .collect();
    let plan = plan(&job.options, &enabled);
    eprintln!("bench: {}", describe(&plan));
    if job.dry_run {
        return Ok(());
    }
    preflight(&plan, job.checkout.as_deref(), &job.criterion_dir)?;
    let cx = Context {
        criterion_dir: job.criterion_dir.clone(),
        checkout: job.checkout.clone(),
        host: job.host.clone(),
    };
    let times = execute(&plan, &cx)?;
    eprintln!("{}", times_table(&times));
    eprintln!(
        "bench: all steps took {:.0} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
