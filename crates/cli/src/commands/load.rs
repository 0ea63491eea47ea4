//! `triebench load`: sustained commits per second with readers running. Preloads a
//! production-shaped state, then runs an open-loop writer and closed-loop readers for every
//! readers × rate cell, or searches the saturation point (`--saturate`), and writes `load.json`,
//! `timeseries.csv` and plots; `--compare A B` sets two `load.json` side by side.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use triebench_kv::{BackendSpec, Profile};
use triebench_measure::cpu_idle::CpuIdleGuard;
use triebench_measure::load_env::capture_env;
use triebench_measure::load_run::{
    LoadOutcome, LoadPlan, LoadProgress, LoadVisitor, MAX_RUNS_PER_RATE, MIN_FRACTION,
    MIN_P99_COMMITS,
};
use triebench_measure::load_summary::run_summary;
use triebench_record::load::{LoadConfig, LoadEnv, LoadFile, RerunRule, RunSummary, LOAD_FILE};
use triebench_record::phases::save_json;
use triebench_record::{CpuIdle, CpuIdleRecord};
use triebench_report::read::load_runs::read_load_file;
use triebench_report::render::load_files::{self, latency, rate};
use triebench_workloads::load::{Judged, Mix, StateShape};

use crate::commands::load_temp;
use crate::commands::outputs::{writable_dir, writable_file};
use crate::commands::phases::describe;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    pub backend: String,
    /// Directory for the store [default: a fresh temporary directory, removed on exit, or by
    /// the next run if this one is killed].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Leaves preloaded before the runs (not timed).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub state_size: u64,
    /// Changes per commit (80% updates, 10% inserts, 10% deletes).
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub commit_size: usize,
    /// Reader threads (1024 at most); a comma-separated list runs a matrix row per entry.
    #[arg(long, value_name = "C,..", default_value = "2")]
    pub readers: String,
    /// Offered commits per second; a list runs a matrix column per entry.
    #[arg(
        long,
        value_name = "R,..",
        default_value = "100",
        allow_hyphen_values = true
    )]
    pub rate: String,
    /// Length of each run (of each search step with --saturate): `10s`, `500ms`, `2m`.
    #[arg(long, value_name = "S", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Output folder.
    #[arg(long, value_name = "DIR", default_value = "load-out")]
    pub out: PathBuf,
    /// Search the highest rate that holds the p99 bound (grow, then bisect), with the first
    /// --readers entry, instead of running the matrix. A rate that fails on its p99 alone over
    /// fewer than 400 commits runs again (3 runs at most) and is judged over all its runs.
    #[arg(long)]
    pub saturate: bool,
    /// A run holds when commit p99 stays within this bound (and it achieves 95% of the rate).
    #[arg(long, value_name = "T", default_value = "100ms", value_parser = parse_duration)]
    pub p99_bound: Duration,
    /// Time limit of a saturation search, preload excluded; no step starts past it.
    #[arg(long, value_name = "T", default_value = "120s", value_parser = parse_duration)]
    pub budget: Duration,
    /// Smallest value, bytes (sizes are drawn log-uniformly between the two bounds).
    #[arg(long, value_name = "B", default_value_t = 32)]
    pub value_min: usize,
    /// Largest value, bytes.
    #[arg(long, value_name = "B", default_value_t = 1024)]
    pub value_max: usize,
    /// Seed of keys and values.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Skip the plots (load.json and timeseries.csv only).
    #[arg(long)]
    pub no_plots: bool,
    /// Print every figure of two load.json files (or folders holding one) side by side with
    /// the ratio B ÷ A, and run nothing.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub compare: Vec<PathBuf>,
    /// Time each phase of the writer's commits (node reads, hashing, encoding, storage
    /// writes, commit) over every run and write `{"total_ns", "phases": {name: ns}, ...}` to
    /// FILE, also printed on standard error. `total_ns` is the writer's time in its commits
    /// (its waits for each commit's turn left out). Needs `--readers 0`.
    #[arg(long, value_name = "FILE")]
    pub phases: Option<PathBuf>,
    /// Sample the whole run (preload, writer, readers) into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
    /// What idle CPUs do while the load runs, as for `headline`: `poll` (hold
    /// /dev/cpu_dma_latency at 0 µs when root) or `os`. Recorded in load.json.
    #[arg(long, value_name = "MODE", default_value = "poll")]
    pub cpu_idle: CpuIdle,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

/// Reader threads a run may ask for (`--readers 100000` took 14 GiB before it was refused).
const MAX_READERS: usize = 1024;
const RUN_DEFAULT: Duration = Duration::from_secs(10);
const STEP_DEFAULT: Duration = Duration::from_secs(5);

fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    // The unit is the trailing letters, so `1e3s` is a thousand seconds.
    let (num, unit) = t.split_at(t.trim_end_matches(char::is_alphabetic).len());
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 10s"))?;
    let secs = match unit {
        "" | "s" => v,
        "ms" => v / 1e3,
        "us" | "µs" => v / 1e6,
        "m" | "min" => v * 60.0,
        _ => return Err(format!("`{text}`: use s, ms, us or m")),
    };
    if !(secs.is_finite() && secs > 0.0) {
        return Err(format!("`{text}` must be above zero"));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{text}` is too long"))
}

/// A comma-separated list; blank entries are skipped, a bad one is an error naming it, and so is
/// an entry given twice (each entry is a row or column of the matrix, found by its value).
fn parse_list<T: std::str::FromStr + PartialEq>(
    flag: &str,
    text: &str,
) -> Result<Vec<T>, CliError> {
    let mut list: Vec<T> = Vec::new();
    for t in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let v: T = t
            .parse()
            .map_err(|_| usage(format!("{flag}: `{t}` is not a number")))?;
        if list.contains(&v) {
            return Err(usage(format!(
                "{flag}: `{t}` is given twice; each entry is one row or column of the matrix"
            )));
        }
        list.push(v);
    }
    Ok(list)
}

fn usage(msg: impl Into<String>) -> CliError {
    CliError::Usage(msg.into())
}

fn load_json(path: &Path) -> Result<LoadFile, CliError> {
    let file = if path.is_dir() {
        path.join(LOAD_FILE)
    } else {
        path.to_path_buf()
    };
    Ok(read_load_file(&file)?)
}

pub fn run_load_command(args: LoadArgs) -> Result<(), CliError> {
    args.net.apply()?;
    let flamegraph = args.flamegraph.clone();
    crate::commands::flamegraph::profiled(flamegraph.as_deref(), || load_command(args))
}

fn load_command(args: LoadArgs) -> Result<(), CliError> {
    if let [a, b] = args.compare.as_slice() {
        let text = load_files::compare_markdown(
            &load_json(a)?,
            &a.display().to_string(),
            &load_json(b)?,
            &b.display().to_string(),
        );
        print!("{text}");
        return Ok(());
    }
    let profile: Profile = args.backend.parse()?;
    let readers: Vec<usize> = parse_list("--readers", &args.readers)?;
    let rates: Vec<f64> = parse_list("--rate", &args.rate)?;
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
        for stale in load_temp::remove_stale(&std::env::temp_dir()) {
            eprintln!(
                "load: removed {}, left by a load run that was killed",
                stale.display()
            );
        }
    }
    let dir = match &args.dir {
        Some(d) => Some(d.clone()),
        None if profile.needs_dir() => {
            let t = load_temp::create()?;
            let p = t.path().to_path_buf();
            temp_dir = Some(t);
            Some(p)
        }
        None => None,
    };
    if let Some(d) = &dir {
        crate::commands::make_dir::make_dir("--dir", d)?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    // A second Ctrl-C exits at once; the first sets the flag and the run ends cleanly.
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&stop)))
            .map_err(CliError::Write)?;
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
        readers: &readers,
        rates: &rates,
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
        .map_err(CliError::from)
        .and_then(|outcome| {
            let outcome = outcome?;
            write_outcome(&args, &plan, outcome, idle.record())
        });
    if matches!(&result, Err(e) if !matches!(e, CliError::Interrupted(_))) {
        if let Some(temp) = temp_dir.take() {
            // The error may name a file in it (a server's log): keep it to be read.
            eprintln!(
                "load: kept the temporary store directory {} for inspection",
                load_temp::keep(temp).display()
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
    a: &LoadArgs,
    plan: &LoadPlan<'_>,
    outcome: LoadOutcome,
    cpu_idle: &CpuIdleRecord,
) -> Result<(), CliError> {
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
        eprint!("{}", describe(row));
        save_json(row, path)?;
    }
    let headline_idx = match saturation {
        Some(s) => runs.iter().position(|r| r.config.rate == s.commits_per_sec),
        None => runs.len().checked_sub(1),
    };
    let Some(headline) = headline_idx.and_then(|i| runs.get(i)) else {
        return Err(CliError::Interrupted(
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
            net: crate::commands::net_arg::net_record(triebench_kv::net_hop::net_from_env()?),
            ..capture_env(plan.dir, std::env::args().collect::<Vec<_>>().join(" "))
        },
        commit: headline.commit_stats(),
        read: headline.read_stats(),
        headline: run_summary(headline, bound_us, MIN_FRACTION),
        saturation,
        runs: summaries,
        search: searched,
    };
    load_files::write_load_folder(&a.out, &file, &headline.seconds(), !a.no_plots)?;
    if !a.saturate && runs.len() > 1 {
        print!("\n{}", load_files::matrix_markdown(&file));
    } else if a.saturate {
        print!("\n{}", load_files::search_markdown(&file));
    }
    println!("load: wrote {}", a.out.join(LOAD_FILE).display());
    if plan.stop.load(Ordering::Relaxed) {
        let cut = runs.last().is_some_and(|r| r.stopped);
        return Err(CliError::Interrupted(format!(
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
