//! The headline's small benchmarks, taken without criterion so that `scripts/bench-fs.sh` needs
//! no bench build by default: the floors `floor/fsync_4k` (one 4 KiB write and `fdatasync` in
//! the directory under test) and `floor/sha512_8k` (SHA-512 over 8 KiB), and what a phase span
//! costs, `phases/span/no-subscriber` and `phases/span/collector`. They are the benchmarks
//! `benches/kv.rs` and `benches/phases.rs` give criterion, under the same ids, so the report
//! reads either.
//!
//! [`collect`] takes the first three before anything listens to the spans,
//! [`collect_with_collector`] the last after everything else (`triebench headline` takes it
//! after every profile). Each is warmed up for [`WARM_UP`], which also sizes it, then taken as
//! [`SAMPLES`] samples of as many iterations as fill [`SAMPLE_TIME`] (at least one); a sample is
//! those iterations and their time together.

use std::convert::Infallible;
use std::fs::File;
use std::hint::black_box;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha512};
use triebench_kv::phase::HASH;
use triebench_kv::phase_span;

use triebench_record::vocabulary::{
    FLOOR_FSYNC, FLOOR_SHA512, SPAN_COLLECTED, SPAN_GROUP, SPAN_IDLE,
};
use triebench_record::{Benchmark, Sample, Throughput, ThroughputUnit};

use crate::error::MeasureError;
use crate::latency::ProbeIo;
use crate::phases;

/// Samples per benchmark.
pub const SAMPLES: usize = 50;
/// Time a sample aims at.
pub const SAMPLE_TIME: Duration = Duration::from_millis(10);
/// Warm-up per benchmark, before its samples.
pub const WARM_UP: Duration = Duration::from_millis(200);
/// Bytes `floor/sha512_8k` hashes per iteration.
const SHA512_INPUT: usize = 8192;

/// Warms `op` up, then times [`SAMPLES`] samples of it.
fn sample<E>(mut op: impl FnMut() -> Result<(), E>) -> Result<Vec<Sample>, E> {
    let warm = Instant::now();
    let mut done = 0u64;
    while warm.elapsed() < WARM_UP {
        op()?;
        done += 1;
    }
    let per_iteration = warm.elapsed().as_nanos() as f64 / done.max(1) as f64;
    let iterations = ((SAMPLE_TIME.as_nanos() as f64 / per_iteration.max(1.0)) as u64).max(1);
    (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                op()?;
            }
            Ok(Sample {
                iterations,
                total: start.elapsed().as_nanos() as f64,
            })
        })
        .collect()
}

/// [`sample`] of an operation that cannot fail.
fn sample_pure(mut op: impl FnMut()) -> Vec<Sample> {
    let Ok(samples) = sample(|| {
        op();
        Ok::<(), Infallible>(())
    });
    samples
}

fn benchmark(group: &str, function: &str, samples: Vec<Sample>, bytes: Option<u64>) -> Benchmark {
    let mut b = Benchmark::ns(group, function, None, samples);
    b.throughput = bytes.map(|per_iteration| Throughput {
        unit: ThroughputUnit::Bytes,
        per_iteration,
    });
    b
}

/// One 4 KiB write and `fdatasync` of a probe file in `dir` (removed afterwards).
fn fsync_floor(dir: &Path) -> Result<Vec<Sample>, MeasureError> {
    let io = ProbeIo(dir);
    let probe = tempfile::Builder::new()
        .prefix("fsync-probe")
        .tempfile_in(dir)
        .map_err(io.err("creating the fsync probe file"))?;
    let file: &File = probe.as_file();
    let block = [0xa5u8; 4096];
    sample(|| {
        file.write_all_at(&block, 0)?;
        file.sync_data()
    })
    .map_err(io.err("writing and syncing the fsync probe file"))
}

fn one_span(x: u64) -> u64 {
    phase_span!(HASH);
    black_box(x)
}

/// Takes the fsync floor (in `dir`), the SHA-512 floor and a span's cost with nothing
/// listening. Run it before anything installs a `tracing` subscriber in this process, as
/// criterion's bench does: that cost is the one of a process where nothing ever listened.
pub fn collect(dir: &Path) -> Result<Vec<Benchmark>, MeasureError> {
    let idle = sample_pure(|| {
        black_box(one_span(black_box(1)));
    });
    let input = vec![0x3cu8; SHA512_INPUT];
    let sha512 = sample_pure(|| {
        black_box(Sha512::digest(black_box(&input)));
    });
    Ok(vec![
        benchmark("floor", FLOOR_FSYNC, fsync_floor(dir)?, None),
        benchmark("floor", FLOOR_SHA512, sha512, Some(SHA512_INPUT as u64)),
        benchmark(SPAN_GROUP, SPAN_IDLE, idle, None),
    ])
}

/// Takes a span's cost with the phase collector listening. Run it after every other
/// measurement of the process: once a subscriber has listened, even in a scope now closed,
/// `tracing`'s global maximum level stays at TRACE, and every span opened later costs one check
/// more than in a process where nothing ever listened.
pub fn collect_with_collector() -> Benchmark {
    let collected = tracing::subscriber::with_default(phases::subscriber(), || {
        sample_pure(|| {
            black_box(one_span(black_box(1)));
        })
    });
    // Keep the collector's totals from carrying over into a later measurement.
    let _ = phases::take();
    benchmark(SPAN_GROUP, SPAN_COLLECTED, collected, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_benchmark_has_its_samples_and_a_positive_time() {
        let dir = tempfile::tempdir().unwrap();
        let mut benchmarks = collect(dir.path()).unwrap();
        benchmarks.push(collect_with_collector());
        let ids: Vec<_> = benchmarks
            .iter()
            .map(|b| format!("{}/{}", b.group, b.function))
            .collect();
        assert_eq!(
            ids,
            [
                "floor/fsync_4k",
                "floor/sha512_8k",
                "phases/span/no-subscriber",
                "phases/span/collector"
            ]
        );
        for b in &benchmarks {
            assert_eq!(b.samples.len(), SAMPLES, "{}", b.group);
            assert!(
                b.samples.iter().all(|s| s.iterations >= 1 && s.total > 0.0),
                "{b:?}"
            );
        }
        // The probe file is gone.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_unwritable_directory_is_an_error_naming_it() {
        let err = collect(Path::new("/nonexistent/triebench-dir")).unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/triebench-dir"),
            "{err}"
        );
    }
}
