//! What a measuring bench records beside the baseline it saves: a run record with no
//! benchmarks of its own (criterion keeps those) that names the machine, the library and server
//! versions the bench was built with, the filesystem `TMPDIR` is on and what idle CPUs did, as
//! `<criterion-dir>/triebench-runs/records/<NAME>/cargo-bench.json`. The report takes a run's
//! versions from its newest record, so `cargo bench -- --save-baseline NAME` then
//! `triebench report` states them as the headline's runs do. Nothing is written when
//! criterion only checks the benches or saves no named baseline.

use triebench_measure::{fs_info_for_dir, versions};
use triebench_record::run_record::{Environment, RunRecord};
use triebench_record::{time, CpuIdleRecord};

use super::{measuring, saved_baseline};

/// The command name the record is filed under.
const COMMAND: &str = "cargo-bench";

/// Writes the record when this bench measures and saves baseline NAME; says so on failure and
/// goes on (the measurements matter more than their context).
pub fn record(cpu_idle: &CpuIdleRecord) {
    let (true, Some(run)) = (measuring(), saved_baseline()) else {
        return;
    };
    let environment = Environment {
        host: triebench_record::host::capture_host(),
        versions: versions::capture(),
    };
    let mut record = RunRecord::new(&run, COMMAND, time::now(), environment);
    record.filesystem = fs_info_for_dir(&run, &std::env::temp_dir()).ok();
    record.cpu_idle = Some(cpu_idle.clone());
    if let Err(e) = record.write(&triebench_report::default_criterion_dir()) {
        eprintln!("triebench: cannot record the run's environment for the report: {e}");
    }
}
