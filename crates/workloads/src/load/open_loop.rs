//! The writer's loop: start commit `i` at its intended time (or at once when behind), record
//! its latency from that intended time, stop at the end of the run or when asked.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::load::clock::Clock;
use crate::load::error::LoadError;
use crate::load::schedule::Schedule;
use crate::load::stats::Recorder;

/// Longest wait between checks of the stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// What the writer did.
#[derive(Debug, Clone, Default)]
pub struct WriterOutcome {
    /// Latency of each commit from its intended start, by completion second of the run.
    pub recorder: Recorder,
    /// Commits started (and completed).
    pub started: u64,
    /// Commits that were due before the run ended but never started: the backlog a slow
    /// backend left.
    pub missed: u64,
    /// Whether the stop flag ended the run early.
    pub stopped: bool,
    /// Time spent inside `commit`, waits for each commit's turn excluded: what a phase
    /// breakdown of the writer's commits adds up to.
    pub busy: Duration,
}

/// Drives `commit(i)` on `schedule` until `end` (clock time) or `stop`. Each commit's latency
/// counts from `schedule.intended(i)`, so time spent queued behind a slow commit is charged.
/// A commit whose turn comes at or after `end` is not started.
pub fn drive<C: Clock>(
    clock: &C,
    schedule: &Schedule,
    end: Duration,
    stop: &AtomicBool,
    mut commit: impl FnMut(u64) -> Result<(), LoadError>,
) -> Result<WriterOutcome, LoadError> {
    let start = schedule.intended(0);
    let mut out = WriterOutcome::default();
    let mut i = 0u64;
    'run: loop {
        let due = schedule.intended(i);
        if due >= end {
            break;
        }
        loop {
            if stop.load(Ordering::Relaxed) {
                out.stopped = true;
                break 'run;
            }
            let now = clock.now();
            if now >= due {
                break;
            }
            clock.sleep_until(due.min(now + STOP_POLL));
        }
        if clock.now() >= end {
            break;
        }
        let begun = clock.now();
        commit(i)?;
        let done = clock.now();
        out.busy += done.saturating_sub(begun);
        out.recorder
            .record(done.saturating_sub(start), done.saturating_sub(due));
        i += 1;
    }
    out.started = i;
    let last = if out.stopped {
        clock.now().min(end)
    } else {
        end
    };
    out.missed = schedule.due_before(last).saturating_sub(i);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::clock::FakeClock;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    /// At 10 commits/s each commit takes 10 ms, except commit 2 which stalls for 350 ms: the
    /// commits queued behind it are charged from their intended start.
    #[test]
    fn a_stall_is_charged_to_the_commits_queued_behind_it() {
        let clock = FakeClock::new();
        let schedule = Schedule::new(10.0, Duration::ZERO).unwrap();
        let stop = AtomicBool::new(false);
        let mut latencies_by_hand = Vec::new();
        let out = drive(&clock, &schedule, ms(1000), &stop, |i| {
            let took = if i == 2 { ms(350) } else { ms(10) };
            let due = schedule.intended(i);
            clock.advance(took);
            latencies_by_hand.push((clock.now() - due).as_millis() as u64);
            Ok(())
        })
        .unwrap();
        // Commit 2 starts at 200 ms and ends at 550; 3 (due 300) runs 550..560, 4 (due 400)
        // 560..570, 5 (due 500) 570..580, then 6 is on time again.
        assert_eq!(
            latencies_by_hand,
            vec![10, 10, 350, 260, 170, 80, 10, 10, 10, 10]
        );
        assert_eq!(out.started, 10);
        assert_eq!(out.missed, 0);
        // Nine 10 ms commits and the stall, none of the 560 ms spent waiting for a turn.
        assert_eq!(out.busy, ms(440));
        let s = out.recorder.summary(Duration::from_secs(1));
        assert_eq!(s.count, 10);
        assert!((349_000..=351_000).contains(&s.max_us), "{s:?}");
        assert!((10_000..=10_010).contains(&s.p50_us), "{s:?}");
    }

    /// A backend slower than the offered rate leaves a backlog that counts as missed, and the
    /// latency of what ran grows with the queue.
    #[test]
    fn an_overloaded_writer_reports_its_backlog() {
        let clock = FakeClock::new();
        let schedule = Schedule::new(100.0, Duration::ZERO).unwrap();
        let stop = AtomicBool::new(false);
        let out = drive(&clock, &schedule, ms(1000), &stop, |_| {
            clock.advance(ms(20));
            Ok(())
        })
        .unwrap();
        assert_eq!(out.started, 50);
        assert_eq!(out.missed, 50);
        let s = out.recorder.summary(Duration::from_secs(1));
        // The last commit was due at 490 ms and finished at 1000 ms.
        assert!((509_000..=511_000).contains(&s.max_us), "{s:?}");
    }

    #[test]
    fn the_stop_flag_ends_the_run_between_commits() {
        let clock = FakeClock::new();
        let schedule = Schedule::new(10.0, Duration::ZERO).unwrap();
        let stop = AtomicBool::new(false);
        let out = drive(&clock, &schedule, ms(10_000), &stop, |i| {
            clock.advance(ms(1));
            if i == 4 {
                stop.store(true, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
        assert!(out.stopped);
        assert_eq!(out.started, 5);
    }
}
