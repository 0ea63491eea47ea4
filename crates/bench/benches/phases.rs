//! What a phase span costs (issue: "spans cheap enough to leave in, and their cost measured").
//!
//! Groups (read by `triebench report`, which states the figures):
//! - `phases/span/no-subscriber`: entering and leaving one phase span while nothing listens,
//!   which is every benchmark and every CLI command run without `--phases`;
//! - `phases/span/collector`: the same with the phase collector (`triebench_measure::phases`)
//!   listening, as under `triebench phases` or `--phases FILE`.
//!
//! Each iteration opens one span ([`triebench_kv::phase_span!`], the macro the trie and the
//! storage boundary use) around an empty block.

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, Criterion};
use triebench_kv::phase::HASH;
use triebench_kv::phase_span;

fn one_span(x: u64) -> u64 {
    phase_span!(HASH);
    black_box(x)
}

fn bench_spans(c: &mut Criterion) {
    let mut group = c.benchmark_group("phases/span");
    // Nanosecond-scale work: a short run gives tight intervals.
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    // Measured before any subscriber was ever installed in this process, so the callsite is
    // in its "nothing listens" state.
    group.bench_function("no-subscriber", |b| b.iter(|| one_span(black_box(1))));
    tracing::subscriber::with_default(triebench_measure::phases::subscriber(), || {
        group.bench_function("collector", |b| b.iter(|| one_span(black_box(1))));
    });
    group.finish();
    // Keep the collector's totals from growing without bound across criterion's runs.
    let _ = triebench_measure::phases::take();
}

criterion_group! {
    name = benches;
    config = support::flamegraph::criterion();
    targets = bench_spans
}
/// `criterion_main!` after `support::begin` (criterion's plot font, idle CPUs held as
/// `TRIEBENCH_CPU_IDLE` asks).
fn main() {
    let _bench = support::begin();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
