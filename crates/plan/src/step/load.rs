//! The `load` step: sustained commits per second with readers running. Preloads a
//! production-shaped state, then runs an open-loop writer and closed-loop readers for every
//! readers × rate cell, or searches the saturation point, and writes `load.json`,
//! `timeseries.csv` and plots.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use triebench_kv::{BackendSpec, Profile};
use triebench_measure::cpu_idle::CpuIdleGuard;
use triebench_measure::load_env::capture_env;
use triebench_measure::load_run::{
    LoadOutcome, LoadPlan, LoadProgress, LoadVisitor, MAX_RUNS_PER_RATE, MIN_FRACTION,
    MIN_P99_COMMITS,
};
use triebench_measure::load_summary::run_summary;
use triebench_measure::outputs::{writable_dir, writable_file};
use triebench_record::load::{LoadConfig, LoadEnv, LoadFile, RerunRule, RunSummary, LOAD_FILE};
use triebench_record::phases::save_json;
use triebench_record::{CpuIdle, CpuIdleRecord};
use triebench_report::read::load_runs::read_load_file;
use triebench_report::render::load_files::{self, latency, rate};
use triebench_workloads::load::{Judged, Mix, StateShape};

use crate::error::PlanError;

/// What to load, how, and where its folder goes.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Backend profile name.
    pub backend: String,
    /// Directory for the store (`None`: a fresh temporary one, removed on exit).
    pub dir: Option<PathBuf>,
    /// Leaves preloaded before the runs (not timed).
    pub state_size: u64,
    /// Changes per commit.
    pub commit_size: usize,
    /// Reader threads per matrix row (the search uses the first).
    pub readers: Vec<usize>,
    /// Offered commits per second per matrix column.
    pub rates: Vec<f64>,
    /// Length of each run (each search step with `saturate`); `None`: 10 s, 5 s searching.
    pub duration: Option<Duration>,
    /// Output folder.
    pub out: PathBuf,
    /// Search the highest rate that holds the p99 bound instead of running the matrix.
    pub saturate: bool,
    /// A run holds when commit p99 stays within this bound.
    pub p99_bound: Duration,
    /// Time limit of a saturation search, preload excluded.
    pub budget: Duration,
    /// Smallest value, bytes.
    pub value_min: usize,
    /// Largest value, bytes.
    pub value_max: usize,
    /// Seed of keys and values.
    pub seed: u64,
    /// Whether to draw the plots.
    pub plots: bool,
    /// Where the writer's phase breakdown goes, when asked for (needs no readers).
    pub phases: Option<PathBuf>,
    /// A flamegraph SVG of the whole run, when asked for.
    pub flamegraph: Option<PathBuf>,
    /// What idle CPUs do while the load runs.
    pub cpu_idle: CpuIdle,
}

impl Default for LoadOptions {
    /// The `load` command's defaults (the CLI's flags say the same; a CLI test checks it):
    /// `btree` in memory, 100,000 leaves, 10 changes per commit, 2 readers at 100 commits/s,
    /// p99 bound 100 ms, search budget 120 s, values 32 B to 1 KiB, seed 1, plots drawn,
    /// idle CPUs polling.
    fn default() -> Self {
        LoadOptions {
            backend: "btree".to_string(),
            dir: None,
            state_size: 100_000,
            commit_size: 10,
            readers: vec![2],
            rates: vec![100.0],
            duration: None,
            out: PathBuf::from("load-out"),
            saturate: false,
            p99_bound: Duration::from_millis(100),
            budget: Duration::from_secs(120),
            value_min: 32,
            value_max: 1024,
            seed: 1,
            plots: true,
            phases: None,
            flamegraph: None,
            cpu_idle: CpuIdle::Poll,
        }
    }
}

/// Reader threads a run may ask for (`--readers 100000` took 14 GiB before it was refused).
const MAX_READERS: usize = 1024;
const RUN_DEFAULT: Duration = Duration::from_secs(10);
const STEP_DEFAULT: Duration = Duration::from_secs(5);

fn usage(msg: impl Into<String>) -> PlanError {
    PlanError::Usage(msg.into())
}

fn load_json(path: &Path) -> Result<LoadFile, PlanError> {
    let file = if path.is_dir() {
        path.join(LOAD_FILE)
    } else {
        path.to_path_buf()
    };
    Ok(read_load_file(&file)?)
}

/// Prints every figure of two `load.json` files (or folders holding one) side by side with the
/// ratio B ÷ A.
pub fn compare(a: &Path, b: &Path) -> Result<(), PlanError> {
    let text = load_files::compare_markdown(
        &load_json(a)?,
        &a.display().to_string(),
        &load_json(b)?,
        &b.display().to_string(),
    );
    print!("{text}");
    Ok(())
}

/// Runs the load (the matrix, or the saturation search), sampled into a flamegraph when asked,
/// and writes its folder; a run stopped by Ctrl-C keeps what it measured and says so.
pub fn load(args: &LoadOptions) -> Result<(), PlanError> {
    crate::flamegraph::profiled(args.flamegraph.as_deref(), || load_unprofiled(args))
}

fn load_unprofiled(args: &LoadOptions) -> Result<(), PlanError> {
    let profile: Profile = args.backend.parse()?;
    let readers = &args.readers;
    let rates = &args.rates;
    if readers.is_empty() || rates.is_empty() {
        return Err(usage(
            "the readers × rate matrix is empty: give --readers and --rate",
        ));
    }
    if let Some(c) = readers.iter().find(|&&c| c > MAX_READERS) {
        return Err(usage(format!(
            "--readers {c} is more than {MAX_READERS} reader threads; each is a closed loop on \
             its own thread, so more would measure the scheduler, not the store"
        )));
    }
    if let Some(r) = rates.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(usage(format!(
            "--rate must be a finite number above 0 commits/s, got {r}"
        )));
    }
    if args.phases.is_some() && readers.iter().any(|&r| r > 0) {
        // The collector listens on the writer's thread only, and with readers running its
        // read spans were seen to go missing: a breakdown that cannot be trusted is refused.
        return Err(usage(
            "--phases times the writer alone: run it with --readers 0",
        ));
    }
    if args.commit_size == 0 {
        return Err(usage("--commit-size must be at least 1"));
    }
    let shape = StateShape {
        size: args.state_size,
        value_min: args.value_min,
        value_max: args.value_max,
        seed: args.seed,
    };
    shape.validate()?;
    // Fail before the preload and the runs, not after, when the results cannot be saved.
    writable_dir("--out", &args.out)?;
    if let Some(path) = &args.phases {
        writable_file("--phases", path)?;
    }
    if let Some(path) = &args.flamegraph {
        writable_file("--flamegraph", path)?;
    }
    let mut temp_dir = None;
    if args.dir.is_none() {
        for stale in crate::step::load_temp::remove_stale(&std::env::temp_dir()) {
            eprintln!(
                "load: removed {}, left by a load run that was killed",
                stale.display()
            );
        }
    }
    let dir = match &args.dir {
        Some(d) => Some(d.clone()),
        None if profile.needs_dir() => {
            let t = crate::step::load_temp::create()?;
            let p = t.path().to_path_buf();
            temp_dir = Some(t);
            Some(p)
        }
        None => None,
    };
    if let Some(d) = &dir {
        triebench_measure::make_dir::make_dir("--dir", d)?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    // A second Ctrl-C exits at once; the first sets the flag and the run ends cleanly.
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&stop)))
            .map_err(|source| PlanError::Write {
                path: PathBuf::from("(signal handler)"),
                source,
            })?;
    }
    // Held for the whole command, preload included; dropping it lifts the bound.
    let idle = CpuIdleGuard::hold(args.cpu_idle);
    eprintln!("load: {}", idle.record().describe());
    let spec = BackendSpec::new(profile, dir.clone())?;
    let duration = args.duration.unwrap_or(if args.saturate {
        STEP_DEFAULT
    } else {
        RUN_DEFAULT
    });
    let plan = LoadPlan {
        profile,
        shape,
        readers,
        rates,
        duration,
        commit_size: args.commit_size,
        saturate: args.saturate,
        p99_bound: args.p99_bound,
        budget: args.budget,
        phases: args.phases.is_some(),
        dir: dir.as_deref(),
        stop: &stop,
    };
    let progress = Bars::new(&args.backend, args.state_size);
    let visitor = LoadVisitor {
        plan,
        progress: &progress,
    };
    let result = spec
        .open(triebench_merkle::TABLES, visitor)
        .map_err(PlanError::from)
        .and_then(|outcome| {
            let outcome = outcome?;
            write_outcome(args, &plan, outcome, idle.record())
        });
    if matches!(&result, Err(e) if !matches!(e, PlanError::Interrupted(_))) {
        if let Some(temp) = temp_dir.take() {
            // The error may name a file in it (a server's log): keep it to be read.
            eprintln!(
                "load: kept the temporary store directory {} for inspection",
                crate::step::load_temp::keep(temp).display()
            );
        }
    }
    result
}

/// The command's progress bars (preload, then one per run) and its line per run.
struct Bars {
    backend: String,
    current: Mutex<ProgressBar>,
}

fn bar(len: u64, template: &str, msg: String) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style);
    }
    pb.set_message(msg);
    pb
}

impl Bars {
    fn new(backend: &str, state_size: u64) -> Bars {
        Bars {
            backend: backend.to_string(),
            current: Mutex::new(bar(
                state_size,
                "preload {bar:40} {pos}/{len} leaves {elapsed} (eta {eta}) {msg}",
                backend.to_string(),
            )),
        }
    }

    /// The bar being drawn (a poisoned lock still holds a usable bar).
    fn current(&self) -> std::sync::MutexGuard<'_, ProgressBar> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl LoadProgress for Bars {
    fn preloading(&self, done: u64) {
        self.current().set_position(done);
    }

    fn preloaded(&self, secs: f64) {
        let pb = self.current();
        pb.finish_and_clear();
        eprintln!(
            "load: {} preloaded {} leaves in {secs:.1} s",
            self.backend,
            pb.length().unwrap_or_default()
        );
    }

    fn run_started(&self, readers: usize, rate: f64, duration: Duration) {
        *self.current() = bar(
            duration.as_secs(),
            "{msg} {bar:30} {pos}/{len} s",
            format!("{} c={readers} r={}/s", self.backend, rate_text(rate)),
        );
    }

    fn running(&self, elapsed: Duration) {
        self.current().set_position(elapsed.as_secs());
    }

    fn run_done(&self, summary: &RunSummary) {
        self.current().finish_and_clear();
        print_run(summary);
    }

    fn pooled(&self, judged: &Judged, bound_us: u64) {
        print_pooled(judged, bound_us);
    }
}

/// Prints what the runs found, writes the phase breakdown (`--phases`) and the load folder.
fn write_outcome(
    a: &LoadOptions,
    plan: &LoadPlan<'_>,
    outcome: LoadOutcome,
    cpu_idle: &CpuIdleRecord,
) -> Result<(), PlanError> {
    let LoadOutcome {
        preload_s,
        runs,
        searched,
        saturation,
        lowest_tried,
        phases,
        bound_us,
    } = outcome;
    if a.saturate {
        match &saturation {
            Some(s) => println!(
                "{} sustains {} commits/s (p99 {})",
                a.backend,
                rate_text(s.commits_per_sec),
                latency(s.p99_us)
            ),
            None => println!(
                "{} sustains no rate tried (lowest {} commits/s) within p99 {}",
                a.backend,
                rate_text(lowest_tried),
                latency(bound_us)
            ),
        }
    }
    if let (Some(row), Some(path)) = (&phases, &a.phases) {
        eprint!("{}", triebench_report::render::phase_lines::describe(row));
        save_json(row, path)?;
    }
    let headline_idx = match saturation {
        Some(s) => runs.iter().position(|r| r.config.rate == s.commits_per_sec),
        None => runs.len().checked_sub(1),
    };
    let Some(headline) = headline_idx.and_then(|i| runs.get(i)) else {
        return Err(PlanError::Interrupted(
            "load was stopped before any run completed; nothing was written".to_string(),
        ));
    };
    let summaries: Vec<RunSummary> = runs
        .iter()
        .map(|r| run_summary(r, bound_us, MIN_FRACTION))
        .collect();
    let file = LoadFile {
        schema_version: triebench_record::load::SCHEMA_VERSION,
        config: LoadConfig {
            backend: a.backend.clone(),
            durability: plan.profile.durability().name().to_string(),
            dir: plan.dir.map(|d| d.display().to_string()),
            state_size: plan.shape.size,
            commit_size: a.commit_size,
            value_bytes: [a.value_min, a.value_max],
            mix: {
                let m = Mix::default();
                [m.update, m.insert, m.delete]
            },
            readers: if a.saturate {
                vec![plan.readers[0]]
            } else {
                plan.readers.to_vec()
            },
            rates: if a.saturate {
                Vec::new()
            } else {
                plan.rates.to_vec()
            },
            duration_s: plan.duration.as_secs_f64(),
            p99_bound_us: bound_us,
            min_fraction: MIN_FRACTION,
            rerun_below: a.saturate.then_some(RerunRule {
                min_commits: MIN_P99_COMMITS,
                max_runs: MAX_RUNS_PER_RATE,
            }),
            seed: a.seed,
            preload_s,
        },
        env: LoadEnv {
            cpu_idle: Some(cpu_idle.clone()),
            net: triebench_kv::net_hop::net_record(triebench_kv::net_hop::net_from_env()?),
            ..capture_env(plan.dir, std::env::args().collect::<Vec<_>>().join(" "))
        },
        commit: headline.commit_stats(),
        read: headline.read_stats(),
        headline: run_summary(headline, bound_us, MIN_FRACTION),
        saturation,
        runs: summaries,
        search: searched,
    };
    load_files::write_load_folder(&a.out, &file, &headline.seconds(), a.plots)?;
    if !a.saturate && runs.len() > 1 {
        print!("\n{}", load_files::matrix_markdown(&file));
    } else if a.saturate {
        print!("\n{}", load_files::search_markdown(&file));
    }
    println!("load: wrote {}", a.out.join(LOAD_FILE).display());
    if plan.stop.load(Ordering::Relaxed) {
        let cut = runs.last().is_some_and(|r| r.stopped);
        return Err(PlanError::Interrupted(format!(
            "load was stopped; {} holds the {} run(s) made before it{}",
            a.out.join(LOAD_FILE).display(),
            runs.len(),
            if cut { ", the last one cut short" } else { "" }
        )));
    }
    Ok(())
}

fn rate_text(r: f64) -> String {
    rate(r)
}

/// One line for a rate the search ran more than once: what its pooled commits decided.
fn print_pooled(judged: &Judged, bound_us: u64) {
    let c = &judged.commits;
    println!(
        "  -> over its {} runs: {} commits, {} commits/s, p99 {} ({} {}){}",
        judged.runs.len(),
        c.count,
        rate_text(c.per_sec),
        latency(c.p99_us),
        if judged.holds { "within" } else { "over" },
        latency(bound_us),
        if judged.holds { "" } else { "  [saturated]" },
    );
}

fn print_run(s: &RunSummary) {
    println!(
        "  readers {:>2}, offered {:>7}/s: achieved {:>7} commits/s, p99 {:>9}, max {:>9}; {:>8} reads/s (p99 {}){}{}",
        s.readers,
        rate(s.rate),
        rate(s.commit.per_sec),
        latency(s.commit.p99_us),
        latency(s.commit.max_us),
        rate(s.read.per_sec),
        latency(s.read.p99_us),
        if s.saturated { "  [saturated]" } else { "" },
        if s.stopped { "  [stopped]" } else { "" },
    );
}
