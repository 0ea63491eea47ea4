//! Idle CPUs while criterion measures, held as `triebench headline` holds them, so `cargo bench`
//! and the headline charge a server's reply the same wake-up: `TRIEBENCH_CPU_IDLE=poll` (the
//! default) keeps `/dev/cpu_dma_latency` at 0 µs for the bench process (root only; elsewhere it
//! says why and measures with the OS's idle states), `os` leaves idle CPUs to the OS. With
//! `--save-baseline NAME` the record goes where the report reads a headline's
//! (`<criterion-dir>/triebench-runs/headline/NAME.json`), so the report states it beside the
//! run. Nothing is held when criterion only checks the benches (`cargo test --benches`).

use triebench_measure::cpu_idle::{self, CpuIdleGuard};
use triebench_record::CpuIdle;

use super::{measuring, saved_baseline};

/// Holds idle CPUs as `TRIEBENCH_CPU_IDLE` asks for as long as the guard lives; an unknown
/// mode stops the bench with a message naming the valid ones.
pub fn hold() -> CpuIdleGuard {
    if !measuring() {
        return CpuIdleGuard::hold(CpuIdle::Os);
    }
    let mode = match std::env::var("TRIEBENCH_CPU_IDLE") {
        Ok(text) if !text.is_empty() => match text.parse::<CpuIdle>() {
            Ok(mode) => mode,
            Err(e) => {
                eprintln!("TRIEBENCH_CPU_IDLE: {e}");
                std::process::exit(2);
            }
        },
        _ => CpuIdle::Poll,
    };
    let guard = CpuIdleGuard::hold(mode);
    eprintln!("triebench: {}", guard.record().describe());
    if let Some(run) = saved_baseline() {
        let dir = triebench_report::default_criterion_dir();
        if let Err(e) = cpu_idle::save(&dir, &run, guard.record()) {
            eprintln!("triebench: cannot record what idle CPUs did for the report: {e}");
        }
    }
    guard
}
