//! The phase collector: a [`tracing_subscriber::Layer`] summing the *self* time of every phase
//! span ([`triebench_kv::phase`]) on the current thread.
//!
//! It lives here, in the report's reading stage, because it is a measurement reader like the
//! slowfs counters: the trie and the storage boundary only open spans (they depend on `tracing`,
//! not on any subscriber), and whoever runs a workload (the CLI, the benches, [`phases_run`])
//! installs this layer around it and turns [`PhaseTotals`] into a
//! [`PhaseRow`](triebench_record::phases::PhaseRow).
//!
//! No allocation per span: the totals are a fixed array indexed by [`Phase::index`], and the
//! stack of open spans is a thread-local vector that keeps its capacity. The collector cuts the
//! thread's timeline at every enter and exit of a phase span and gives each slice to the phase
//! innermost open during it, so nested phases are not counted twice and the phases add up to
//! exactly the time inside the outermost spans. That includes the collector's own work between
//! two spans (registry bookkeeping, clock reads), which lands in the phase open around it,
//! mostly the parent: on a slow clock or an unoptimised build it would otherwise fall between
//! the phases and look like code outside them. What a span costs is measured on its own by the
//! `phases` bench.
//!
//! [`phases_run`]: crate::phases_run

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;
use triebench_kv::Phase;

const PHASES: usize = Phase::ALL.len();

/// Time and span count per phase, indexed by [`Phase::index`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PhaseTotals {
    /// Self time per phase, ns.
    pub ns: [u64; PHASES],
    /// Spans closed per phase.
    pub spans: [u64; PHASES],
}

impl PhaseTotals {
    /// Nanoseconds per phase name, phases with no span left out.
    pub fn ns_by_name(&self) -> BTreeMap<String, u64> {
        self.by_name(&self.ns)
    }

    /// Spans per phase name, phases with no span left out.
    pub fn spans_by_name(&self) -> BTreeMap<String, u64> {
        self.by_name(&self.spans)
    }

    fn by_name(&self, values: &[u64; PHASES]) -> BTreeMap<String, u64> {
        Phase::ALL
            .into_iter()
            .filter(|p| self.spans[p.index()] > 0)
            .map(|p| (p.name().to_string(), values[p.index()]))
            .collect()
    }

    /// Adds `other`'s time and spans to these (a tally over several measured runs).
    pub fn add(&mut self, other: &PhaseTotals) {
        for i in 0..PHASES {
            self.ns[i] += other.ns[i];
            self.spans[i] += other.spans[i];
        }
    }

    /// Sum over every phase.
    pub fn total_ns(&self) -> u64 {
        self.ns.iter().sum()
    }
}

struct State {
    totals: PhaseTotals,
    /// Phases of the open spans, innermost last.
    stack: Vec<usize>,
    /// The last cut of the timeline (an enter or exit); read only while a phase span is open.
    last_cut: Instant,
}

impl State {
    /// Gives the time since the last cut to the innermost open phase and cuts at `now`.
    fn cut(&mut self, now: Instant) {
        if let Some(&phase) = self.stack.last() {
            self.totals.ns[phase] += now.duration_since(self.last_cut).as_nanos() as u64;
        }
        self.last_cut = now;
    }
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State {
        totals: PhaseTotals::default(),
        stack: Vec::with_capacity(64),
        last_cut: Instant::now(),
    });
}

/// Takes the current thread's totals and starts them again from zero.
pub fn take() -> PhaseTotals {
    STATE.with(|s| std::mem::take(&mut s.borrow_mut().totals))
}

/// The layer: listens to phase spans only (others are not enabled by it).
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseLayer;

fn phase_of(meta: &Metadata<'_>) -> Option<Phase> {
    if meta.is_span() {
        Phase::from_name(meta.name())
    } else {
        None
    }
}

impl<S> Layer<S> for PhaseLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if phase_of(meta).is_some() {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, meta: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        phase_of(meta).is_some()
    }

    fn on_new_span(&self, _attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {}

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        let Some(phase) = ctx.metadata(id).and_then(phase_of) else {
            return;
        };
        let now = Instant::now();
        STATE.with(|s| {
            let mut state = s.borrow_mut();
            state.cut(now);
            state.stack.push(phase.index());
        });
    }

    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        if ctx.metadata(id).and_then(phase_of).is_none() {
            return;
        }
        let now = Instant::now();
        STATE.with(|s| {
            let mut state = s.borrow_mut();
            state.cut(now);
            if let Some(phase) = state.stack.pop() {
                state.totals.spans[phase] += 1;
            }
        });
    }
}

/// A subscriber with just the phase layer, for [`tracing::subscriber::with_default`] or
/// [`tracing::subscriber::set_global_default`].
pub fn subscriber() -> impl Subscriber + Send + Sync {
    use tracing_subscriber::layer::SubscriberExt;
    tracing_subscriber::registry().with(PhaseLayer)
}

/// Runs `f` with the phase collector listening on this thread and returns its result with the
/// phase totals and the wall time of `f` in ns.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, PhaseTotals, u64) {
    tracing::subscriber::with_default(subscriber(), || {
        take();
        let start = Instant::now();
        let out = f();
        let total = start.elapsed().as_nanos() as u64;
        (out, take(), total)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_kv::phase::{HASH, STORAGE_READ, TRIE};
    use triebench_kv::phase_span;

    fn spin(ns: u64) {
        let start = Instant::now();
        while (start.elapsed().as_nanos() as u64) < ns {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn nested_spans_count_self_time_once() {
        let ((), totals, wall) = measure(|| {
            phase_span!(TRIE);
            spin(2_000_000);
            {
                phase_span!(HASH);
                spin(3_000_000);
                {
                    phase_span!(STORAGE_READ);
                    spin(1_000_000);
                }
            }
            let _ignored = tracing::span!(tracing::Level::TRACE, "not_a_phase").entered();
        });
        let t = totals.ns;
        assert!(t[Phase::Trie.index()] >= 2_000_000, "{totals:?}");
        assert!(t[Phase::Hash.index()] >= 3_000_000, "{totals:?}");
        assert!(t[Phase::StorageRead.index()] >= 1_000_000, "{totals:?}");
        // Nothing counted twice: the self times fit in the wall time.
        assert!(totals.total_ns() <= wall, "{totals:?} vs {wall}");
        assert_eq!(totals.spans[Phase::Trie.index()], 1);
        assert_eq!(totals.spans[Phase::Hash.index()], 1);
        assert_eq!(totals.spans_by_name().len(), 3);
        // Taken: the next take starts from zero.
        assert_eq!(take(), PhaseTotals::default());
    }
}
