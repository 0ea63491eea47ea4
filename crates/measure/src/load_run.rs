//! A load run on an opened store (`triebench load`): preload a production-shaped state, then
//! run an open-loop writer and closed-loop readers for every readers × rate cell, or search
//! the highest rate that holds the p99 bound; the runs' [`RunResult`]s, the search's verdicts
//! and, with `phases`, the writer's phase time. What the caller shows while it goes (progress
//! bars, a line per run) it hears through [`LoadProgress`]; what it writes (`load.json`,
//! plots) it builds from the [`LoadOutcome`].

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use triebench_kv::{Profile, Store, StoreVisitor};
use triebench_record::load::{RunSummary, Saturation, SearchedRate};
use triebench_record::phases::PhaseRow;
use triebench_workloads::load::saturate::{search, sustained, SearchPlan};
use triebench_workloads::load::{
    judge, preload, run_load, Judged, LoadError, LoadState, Mix, RunConfig, RunResult, StateShape,
    StepRule, SystemClock,
};

use crate::load_summary::run_summary;
use crate::phase_tally::PhaseTally;
use crate::proc_monitor::ProcMonitor;

/// Fraction of the offered rate a run must achieve to hold.
pub const MIN_FRACTION: f64 = 0.95;
/// A rate whose p99 fails over fewer commits than this runs again (the p99 of a few hundred
/// commits is a handful of samples), up to [`MAX_RUNS_PER_RATE`] runs.
pub const MIN_P99_COMMITS: u64 = 400;
/// Most runs of one rate in a saturation search.
pub const MAX_RUNS_PER_RATE: usize = 3;

/// What to run once the store is open.
#[derive(Debug, Clone, Copy)]
pub struct LoadPlan<'a> {
    /// The profile of the store (for the phase row).
    pub profile: Profile,
    /// The state preloaded before the runs (not timed).
    pub shape: StateShape,
    /// Reader threads per matrix row (the first only, when searching).
    pub readers: &'a [usize],
    /// Offered commits/s per matrix column (unused when searching).
    pub rates: &'a [f64],
    /// Length of each run (of each search step).
    pub duration: Duration,
    /// Changes per commit.
    pub commit_size: usize,
    /// Search the highest rate that holds instead of running the matrix.
    pub saturate: bool,
    /// A run holds when its commit p99 stays within this (and it achieves [`MIN_FRACTION`]).
    pub p99_bound: Duration,
    /// Time limit of a search, preload excluded; no step starts past it.
    pub budget: Duration,
    /// Time the writer's phases over every run.
    pub phases: bool,
    /// The store's directory, for its size on disk.
    pub dir: Option<&'a Path>,
    /// Set by Ctrl-C: no further run starts, the current one ends early.
    pub stop: &'a AtomicBool,
}

/// What a load run measured.
#[derive(Debug)]
pub struct LoadOutcome {
    /// Seconds the preload took.
    pub preload_s: f64,
    /// Every run made, in order (matrix cells or search steps).
    pub runs: Vec<RunResult>,
    /// The rates a search tried, each judged over all its runs (empty for a matrix).
    pub searched: Vec<SearchedRate>,
    /// The highest rate that held, when a search found one.
    pub saturation: Option<Saturation>,
    /// The lowest rate a search tried (0 when none), for "no rate held".
    pub lowest_tried: f64,
    /// The writer's phase time over every run, when the plan asked for it.
    pub phases: Option<PhaseRow>,
    /// The p99 bound in µs.
    pub bound_us: u64,
}

/// What the caller hears while a load run goes, in order; shared with the writer's progress
/// callback, hence `&self` and `Sync`.
pub trait LoadProgress: Sync {
    /// `done` leaves of the preload are written.
    fn preloading(&self, done: u64);
    /// The preload took `secs`.
    fn preloaded(&self, secs: f64);
    /// A run of `readers` readers at `rate` commits/s for `duration` starts.
    fn run_started(&self, readers: usize, rate: f64, duration: Duration);
    /// The current run is `elapsed` in.
    fn running(&self, elapsed: Duration);
    /// The current run ended with `summary`.
    fn run_done(&self, summary: &RunSummary);
    /// A rate the search ran more than once was judged over its runs' pooled commits.
    fn pooled(&self, judged: &Judged, bound_us: u64);
}

/// Runs `plan` on the store it is given, telling `progress`.
pub struct LoadVisitor<'a, P: LoadProgress> {
    /// What to run.
    pub plan: LoadPlan<'a>,
    /// Who hears how it goes.
    pub progress: &'a P,
}

impl<P: LoadProgress> StoreVisitor for LoadVisitor<'_, P> {
    type Output = Result<LoadOutcome, LoadError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let LoadVisitor { plan, progress } = self;
        let t0 = Instant::now();
        let (root, window) = preload(&store, &plan.shape, &mut |n| progress.preloading(n))?;
        let preload_s = t0.elapsed().as_secs_f64();
        progress.preloaded(preload_s);
        let mut state = LoadState {
            shape: plan.shape,
            root,
            window,
            commits: 0,
        };
        let mut monitor = ProcMonitor::new(store.server_pid(), plan.dir);
        let bound_us = u64::try_from(plan.p99_bound.as_micros()).unwrap_or(u64::MAX);
        let mut tally = PhaseTally::default();
        let mut one = |readers: usize, rate: f64| -> Result<RunResult, LoadError> {
            let cfg = RunConfig {
                rate,
                readers,
                duration: plan.duration,
                commit_size: plan.commit_size,
                mix: Mix::default(),
            };
            progress.run_started(readers, rate, plan.duration);
            let mut go = || {
                run_load(
                    &store,
                    &mut state,
                    &cfg,
                    &SystemClock::start(),
                    &mut monitor,
                    plan.stop,
                    &|t| progress.running(t),
                )
            };
            let run = if plan.phases {
                tally.measure(go)?
            } else {
                go()?
            };
            progress.run_done(&run_summary(&run, bound_us, MIN_FRACTION));
            Ok(run)
        };
        let mut runs: Vec<RunResult> = Vec::new();
        let mut searched: Vec<SearchedRate> = Vec::new();
        let mut saturation = None;
        let mut lowest_tried = 0.0;
        if plan.saturate {
            let readers = plan.readers.first().copied().unwrap_or(0);
            let started = Instant::now();
            let rule = StepRule {
                p99_bound: plan.p99_bound,
                min_fraction: MIN_FRACTION,
                min_commits: MIN_P99_COMMITS,
                max_runs: MAX_RUNS_PER_RATE,
            };
            let steps = search(&SearchPlan::default(), |rate| {
                let judged = judge(&rule, rate, || {
                    if plan.stop.load(Ordering::Relaxed)
                        || started.elapsed() + plan.duration > plan.budget
                    {
                        return Ok(None);
                    }
                    one(readers, rate).map(Some)
                })?;
                let Some(judged) = judged else {
                    return Ok(None);
                };
                if judged.runs.len() > 1 {
                    progress.pooled(&judged, bound_us);
                }
                let stopped = judged.runs.iter().any(|r| r.stopped);
                searched.push(SearchedRate {
                    rate,
                    runs: judged.runs.len(),
                    commit: judged.commits,
                    holds: judged.holds,
                });
                runs.extend(judged.runs);
                Ok::<_, LoadError>(if stopped { None } else { Some(judged.holds) })
            })?;
            lowest_tried = steps.last().map_or(0.0, |s| s.rate);
            if let Some(best) = sustained(&steps) {
                let s = searched
                    .iter()
                    .find(|s| s.rate == best)
                    .map(|s| s.commit)
                    .unwrap_or_default();
                saturation = Some(Saturation {
                    commits_per_sec: best,
                    p99_us: s.p99_us,
                    achieved_per_sec: s.per_sec,
                    steps: steps.len(),
                    search_s: started.elapsed().as_secs_f64(),
                });
            }
        } else {
            'matrix: for &c in plan.readers {
                for &r in plan.rates {
                    if plan.stop.load(Ordering::Relaxed) {
                        break 'matrix;
                    }
                    runs.push(one(c, r)?);
                }
            }
        }
        let phases = plan.phases.then(|| {
            let commits = runs.iter().map(|r| r.commit_stats().count).sum();
            let busy = runs.iter().map(|r| r.writer_busy).sum();
            tally.row(plan.profile, "load", commits, busy)
        });
        Ok(LoadOutcome {
            preload_s,
            runs,
            searched,
            saturation,
            lowest_tried,
            phases,
            bound_us,
        })
    }
}
