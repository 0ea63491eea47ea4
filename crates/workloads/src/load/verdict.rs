//! Whether a rate of the saturation search holds: the writer achieved at least `min_fraction` of
//! it, with the commits' p99 within the bound.
//!
//! A p99 over few commits is their worst one or two: a step of 4 s at 25 commits/s makes 100, so
//! one stall (a checkpoint, an autovacuum, the host) over the bound fails the rate, and one
//! search ends a step or two below another of the same backend. So a rate that fails on its
//! p99 alone (achieved in full, median within the bound) over fewer than `min_commits` commits
//! is run again, and judged over all its runs together, up to `max_runs` runs: the p99 is then
//! taken over enough commits that a rare stall is not the percentile. A rate that fails on
//! what it achieved, or whose median is over the bound, fails at once; a rate that holds is
//! never run again.

use std::time::Duration;

use super::run::RunResult;
use super::stats::{OpStats, Recorder};

/// How a rate is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepRule {
    /// The commits' p99 must stay within this.
    pub p99_bound: Duration,
    /// The share of the offered rate the writer must achieve.
    pub min_fraction: f64,
    /// Commits a failing p99 must be taken over before it counts.
    pub min_commits: u64,
    /// Runs of one rate at most.
    pub max_runs: usize,
}

/// What the commits so far say about a rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Achieved, with p99 within the bound.
    Holds,
    /// Short of the rate, or over the bound on enough commits (or on its median).
    Fails,
    /// Over the bound on p99 alone, with too few commits to tell: run the rate again.
    RunAgain,
}

impl StepRule {
    /// The verdict on a rate from its pooled commits, after `runs` runs of it.
    pub fn verdict(&self, offered: f64, commits: &OpStats, runs: usize) -> Verdict {
        if commits.holds(offered, self.p99_bound, self.min_fraction) {
            return Verdict::Holds;
        }
        let unsure = commits.achieves(offered, self.min_fraction)
            && commits.count < self.min_commits
            && u128::from(commits.p50_us) <= self.p99_bound.as_micros();
        if unsure && runs < self.max_runs {
            Verdict::RunAgain
        } else {
            Verdict::Fails
        }
    }
}

/// One rate's runs and what they decided.
#[derive(Debug)]
pub struct Judged {
    /// Whether the rate held (a rate still unsure when no further run was allowed fails).
    pub holds: bool,
    /// The commits of every run of the rate, pooled.
    pub commits: OpStats,
    /// The runs, in order.
    pub runs: Vec<RunResult>,
}

/// Runs `rate` with `run_once` until `rule` decides, pooling the commits of its runs.
/// `run_once` returns `None` when no further run may start (stopped, out of time); `None`
/// overall when not even one run started.
pub fn judge<E>(
    rule: &StepRule,
    rate: f64,
    mut run_once: impl FnMut() -> Result<Option<RunResult>, E>,
) -> Result<Option<Judged>, E> {
    let mut pooled = Recorder::new();
    let mut elapsed = Duration::ZERO;
    let mut runs = Vec::new();
    let mut commits = OpStats::default();
    let mut verdict = Verdict::RunAgain;
    while verdict == Verdict::RunAgain {
        let Some(run) = run_once()? else {
            break;
        };
        pooled.merge(&run.commit);
        elapsed += run.elapsed;
        let stopped = run.stopped;
        runs.push(run);
        commits = pooled.summary(elapsed);
        verdict = rule.verdict(rate, &commits, runs.len());
        if stopped {
            break;
        }
    }
    if runs.is_empty() {
        return Ok(None);
    }
    Ok(Some(Judged {
        holds: verdict == Verdict::Holds,
        commits,
        runs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::run::RunConfig;
    use crate::load::state::Mix;

    const RULE: StepRule = StepRule {
        p99_bound: Duration::from_millis(100),
        min_fraction: 0.95,
        min_commits: 400,
        max_runs: 3,
    };

    /// A 4 s run at `rate` whose commits take `ms` each, except `slow` of them taking 150 ms.
    fn run(rate: f64, commits: u64, ms: u64, slow: u64) -> RunResult {
        let mut commit = Recorder::new();
        for i in 0..commits {
            let latency = if i < slow { 150 } else { ms };
            commit.record(
                Duration::from_millis(i * 4000 / commits.max(1)),
                Duration::from_millis(latency),
            );
        }
        RunResult {
            config: RunConfig {
                rate,
                readers: 2,
                duration: Duration::from_secs(4),
                commit_size: 10,
                mix: Mix::default(),
            },
            elapsed: Duration::from_secs(4),
            commit,
            read: Recorder::new(),
            resources: Vec::new(),
            missed: 0,
            stopped: false,
            writer_busy: Duration::from_millis((commits - slow) * ms + slow * 150),
        }
    }

    /// Judges the rate of `runs` (25/s when there are none), offering them one by one.
    fn judged(runs: Vec<RunResult>) -> (Option<bool>, usize) {
        let rate = runs.first().map_or(25.0, |r| r.config.rate);
        let mut left = runs.into_iter();
        let j = judge::<()>(&RULE, rate, || Ok(left.next())).expect("judge");
        (j.as_ref().map(|j| j.holds), j.map_or(0, |j| j.runs.len()))
    }

    #[test]
    fn one_stall_in_a_short_run_is_judged_over_more_commits() {
        // 100 commits, 2 of them stalled: p99 is a stall. One more clean run: 2 in 200, and
        // the third run offered is never taken.
        let runs = vec![
            run(25.0, 100, 20, 2),
            run(25.0, 100, 20, 0),
            run(25.0, 100, 20, 0),
        ];
        assert_eq!(judged(runs), (Some(true), 2));
    }

    #[test]
    fn stalls_that_recur_fail_over_every_run() {
        let runs = vec![
            run(25.0, 100, 20, 2),
            run(25.0, 100, 20, 2),
            run(25.0, 100, 20, 2),
        ];
        assert_eq!(judged(runs), (Some(false), 3));
    }

    #[test]
    fn a_rate_that_holds_or_plainly_fails_runs_once() {
        assert_eq!(judged(vec![run(25.0, 100, 20, 0)]), (Some(true), 1));
        // Short of the rate: 80 of 100 commits.
        assert_eq!(judged(vec![run(25.0, 80, 20, 0)]), (Some(false), 1));
        // Median over the bound.
        assert_eq!(judged(vec![run(25.0, 100, 120, 0)]), (Some(false), 1));
        // Enough commits already: 800 at 200/s, 10 of them stalled.
        assert_eq!(judged(vec![run(200.0, 800, 20, 10)]), (Some(false), 1));
    }

    #[test]
    fn an_unsure_rate_with_no_run_left_fails() {
        // The budget allows one run only.
        assert_eq!(judged(vec![run(25.0, 100, 20, 2)]), (Some(false), 1));
        assert_eq!(judged(Vec::new()), (None, 0));
    }
}
