//! Flamegraphs from `cargo bench ... -- --profile-time SECONDS`: criterion's profiler hook with
//! `pprof` sampling this process (no system profiler needed). Each benchmark profiled gets
//! `<criterion-dir>/<benchmark id>/profile/flamegraph.svg`.
//!
//! pprof's own criterion integration targets an older criterion, so the hook is implemented
//! here against criterion's [`Profiler`] trait.

use std::fs::File;
use std::path::Path;

use criterion::profiler::Profiler;
use criterion::Criterion;

/// Samples per second: a prime, so sampling does not lock step with periodic work.
const FREQUENCY: i32 = 997;

/// The profiler criterion starts and stops around each benchmark under `--profile-time`.
#[derive(Default)]
pub struct Flamegraph {
    active: Option<pprof::ProfilerGuard<'static>>,
}

impl Profiler for Flamegraph {
    fn start_profiling(&mut self, benchmark_id: &str, _benchmark_dir: &Path) {
        let guard = pprof::ProfilerGuardBuilder::default()
            .frequency(FREQUENCY)
            .blocklist(&["libc", "libgcc", "pthread", "vdso"])
            .build();
        match guard {
            Ok(guard) => self.active = Some(guard),
            Err(e) => eprintln!("flamegraph: cannot sample {benchmark_id}: {e}"),
        }
    }

    fn stop_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path) {
        let Some(guard) = self.active.take() else {
            return;
        };
        let path = benchmark_dir.join("flamegraph.svg");
        let written = guard
            .report()
            .build()
            .map_err(|e| e.to_string())
            .and_then(|report| {
                std::fs::create_dir_all(benchmark_dir).map_err(|e| e.to_string())?;
                let file = File::create(&path).map_err(|e| e.to_string())?;
                report.flamegraph(file).map_err(|e| e.to_string())
            });
        match written {
            Ok(()) => eprintln!("flamegraph of {benchmark_id}: {}", path.display()),
            Err(e) => eprintln!("flamegraph: cannot write {}: {e}", path.display()),
        }
    }
}

/// Criterion's default configuration with the flamegraph profiler hooked in.
pub fn criterion() -> Criterion {
    Criterion::default().with_profiler(Flamegraph::default())
}
