//! One load run: the open-loop writer on this thread, `C` closed-loop readers and a sampler on
//! scoped threads sharing `&S` (every [`Store`] is `Sync`), for a fixed duration.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};
use std::time::Duration;

use triebench_kv::Store;
use triebench_merkle::MerkleTrie;

use crate::load::clock::Clock;
use crate::load::error::LoadError;
use crate::load::monitor::{Monitor, ResourceSample};
use crate::load::open_loop;
use crate::load::schedule::Schedule;
use crate::load::state::{address, plan_commit, KeyWindow, Mix, StateShape};
use crate::load::stats::{OpStats, Recorder};
use crate::rng::XorShift64Star;

/// What one run offers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunConfig {
    /// Commits per second offered (open loop).
    pub rate: f64,
    /// Reader threads (closed loop).
    pub readers: usize,
    /// How long the run lasts.
    pub duration: Duration,
    /// Changes per commit.
    pub commit_size: usize,
    /// The kinds of change.
    pub mix: Mix,
}

/// The state a run starts from and leaves for the next: its root and live keys.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadState {
    /// How keys and values are made.
    pub shape: StateShape,
    /// The latest committed root.
    pub root: String,
    /// The live keys under it.
    pub window: KeyWindow,
    /// Commits made so far under load (seeds each run's generator differently).
    pub commits: u64,
}

pub use triebench_record::load::SecondSample;

/// What a run measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// What was offered.
    pub config: RunConfig,
    /// How long it ran (shorter than asked when stopped).
    pub elapsed: Duration,
    /// Commit latencies (from the intended start).
    pub commit: Recorder,
    /// Read latencies.
    pub read: Recorder,
    /// Resource samples, one per whole second.
    pub resources: Vec<ResourceSample>,
    /// Commits due but never started.
    pub missed: u64,
    /// Whether the stop flag ended the run.
    pub stopped: bool,
    /// The writer's time in its commits (opening the trie included), without its waits for
    /// each commit's scheduled start.
    pub writer_busy: Duration,
}

impl RunResult {
    /// The commits' summary.
    pub fn commit_stats(&self) -> OpStats {
        self.commit.summary(self.elapsed)
    }

    /// The reads' summary.
    pub fn read_stats(&self) -> OpStats {
        self.read.summary(self.elapsed)
    }

    /// Whether the run held: achieved at least `min_fraction` of the offered rate with the
    /// commits' p99 within `p99_bound`.
    pub fn holds(&self, p99_bound: Duration, min_fraction: f64) -> bool {
        self.commit_stats()
            .holds(self.config.rate, p99_bound, min_fraction)
    }

    /// One row per second of the run.
    pub fn seconds(&self) -> Vec<SecondSample> {
        let n = self.elapsed.as_secs_f64().ceil() as usize;
        (0..n)
            .map(|s| {
                let (commits, commit_p99_us) = self.commit.second(s);
                let (reads, read_p99_us) = self.read.second(s);
                let r = self.resources.get(s).copied().unwrap_or_default();
                SecondSample {
                    t_s: s as u64 + 1,
                    commits,
                    commit_p99_us,
                    reads,
                    read_p99_us,
                    rss_bytes: r.rss_bytes,
                    cpu_pct: r.cpu_pct,
                    store_bytes: r.store_bytes,
                }
            })
            .collect()
    }
}

/// The latest committed root and its live keys, as readers see them.
struct Published {
    generation: AtomicU64,
    snapshot: RwLock<(String, KeyWindow)>,
}

impl Published {
    fn get(&self) -> (String, KeyWindow) {
        self.snapshot
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, root: &str, window: KeyWindow) {
        let mut s = self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        s.0.clear();
        s.0.push_str(root);
        s.1 = window;
        self.generation.fetch_add(1, Ordering::Release);
    }
}

/// Runs `config` against `store` from `state` (updated to where the run leaves it). `stop`
/// ends the run early, keeping what was measured; `progress` hears the elapsed time once per
/// second.
pub fn run_load<S: Store, C: Clock, M: Monitor>(
    store: &S,
    state: &mut LoadState,
    config: &RunConfig,
    clock: &C,
    monitor: &mut M,
    stop: &AtomicBool,
    progress: &(dyn Fn(Duration) + Sync),
) -> Result<RunResult, LoadError> {
    if config.commit_size == 0 {
        return Err(LoadError::Config(
            "the commit size must be at least 1".into(),
        ));
    }
    let start = clock.now();
    let schedule = Schedule::new(config.rate, start)?;
    let end = start + config.duration;
    let published = Published {
        generation: AtomicU64::new(0),
        snapshot: RwLock::new((state.root.clone(), state.window)),
    };
    let done = AtomicBool::new(false);
    let seed = state.shape.seed ^ state.commits.wrapping_mul(0x9e37_79b9);

    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..config.readers)
            .map(|r| {
                let (published, done) = (&published, &done);
                let shape = state.shape;
                scope.spawn(move || {
                    read_loop(
                        store,
                        clock,
                        start,
                        &shape,
                        published,
                        done,
                        seed ^ (r as u64 + 1),
                    )
                })
            })
            .collect();
        let sampler = {
            let done = &done;
            scope.spawn(move || sample_loop(clock, start, monitor, done, progress))
        };
        let writer = write_loop(
            store, state, config, clock, &schedule, end, stop, &published, seed,
        );
        done.store(true, Ordering::Relaxed);
        let mut read = Recorder::new();
        let mut first_err = writer.as_ref().err().map(|e| e.to_string());
        for handle in readers {
            match handle.join() {
                Ok(Ok(rec)) => read.merge(&rec),
                Ok(Err(e)) => first_err = first_err.or(Some(e.to_string())),
                Err(_) => first_err = first_err.or(Some("a reader panicked".to_string())),
            }
        }
        let resources = sampler.join().unwrap_or_default();
        let writer = writer?;
        if let Some(e) = first_err {
            return Err(LoadError::Thread(e));
        }
        let elapsed = if writer.stopped {
            clock.now().saturating_sub(start).min(config.duration)
        } else {
            config.duration
        };
        Ok(RunResult {
            config: *config,
            elapsed,
            commit: writer.recorder,
            read,
            resources,
            missed: writer.missed,
            stopped: writer.stopped,
            writer_busy: writer.busy,
        })
    })
}

#[allow(clippy::too_many_arguments)]
fn write_loop<S: Store, C: Clock>(
    store: &S,
    state: &mut LoadState,
    config: &RunConfig,
    clock: &C,
    schedule: &Schedule,
    end: Duration,
    stop: &AtomicBool,
    published: &Published,
    seed: u64,
) -> Result<open_loop::WriterOutcome, LoadError> {
    let opening = clock.now();
    let mut trie = MerkleTrie::at_root(store, &state.root)?;
    let opened = clock.now().saturating_sub(opening);
    let mut rng = XorShift64Star::new(seed);
    let mut out = open_loop::drive(clock, schedule, end, stop, |_| {
        let (changes, window) = plan_commit(
            &state.shape,
            &config.mix,
            state.window,
            config.commit_size,
            &mut rng,
        );
        let root = trie.commit(&changes)?;
        trie.set_root(&root)?;
        state.root = root;
        state.window = window;
        state.commits += 1;
        published.set(&state.root, window);
        Ok(())
    })?;
    out.busy += opened;
    Ok(out)
}

fn read_loop<S: Store, C: Clock>(
    store: &S,
    clock: &C,
    start: Duration,
    shape: &StateShape,
    published: &Published,
    done: &AtomicBool,
    seed: u64,
) -> Result<Recorder, LoadError> {
    let mut rec = Recorder::new();
    let mut rng = XorShift64Star::new(seed);
    let mut seen = published.generation.load(Ordering::Acquire);
    let (root, mut window) = published.get();
    let mut trie = MerkleTrie::at_root(store, &root)?;
    while !done.load(Ordering::Relaxed) {
        let generation = published.generation.load(Ordering::Acquire);
        if generation != seen {
            let (root, w) = published.get();
            trie.set_root(&root)?;
            window = w;
            seen = generation;
        }
        let Some(i) = window.pick(&mut rng) else {
            std::thread::yield_now();
            continue;
        };
        let addr = address(shape.seed, i);
        let t0 = clock.now();
        let found = trie.get(&addr)?;
        let t1 = clock.now();
        if found.is_none() {
            return Err(LoadError::MissingKey {
                address: addr,
                root: trie.root().to_string(),
            });
        }
        rec.record(t1.saturating_sub(start), t1.saturating_sub(t0));
    }
    Ok(rec)
}

fn sample_loop<C: Clock, M: Monitor>(
    clock: &C,
    start: Duration,
    monitor: &mut M,
    done: &AtomicBool,
    progress: &(dyn Fn(Duration) + Sync),
) -> Vec<ResourceSample> {
    let mut out = Vec::new();
    // Sets the CPU baseline.
    let _ = monitor.sample();
    let mut next = start + Duration::from_secs(1);
    loop {
        while clock.now() < next {
            if done.load(Ordering::Relaxed) {
                // The last (possibly partial) second gets a sample too.
                out.push(monitor.sample());
                return out;
            }
            clock.sleep_until(next.min(clock.now() + Duration::from_millis(50)));
        }
        out.push(monitor.sample());
        progress(next - start);
        next += Duration::from_secs(1);
    }
}
