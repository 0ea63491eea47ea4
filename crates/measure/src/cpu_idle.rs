//! Holding idle CPUs polling while a run measures ([`CpuIdleGuard`]), and the record of it a
//! headline leaves beside its run record (`<criterion-dir>/triebench-runs/headline/<run>.json`),
//! which the report states beside the numbers it shaped (see [`triebench_record::cpu_idle`]
//! for why).
//!
//! The mechanism is Linux's CPU latency QoS: while a process keeps `/dev/cpu_dma_latency` open
//! after writing a bound to it (a native-endian `i32`, in µs), the idle governor picks no idle
//! state slower to leave than the bound; at 0 µs idle CPUs poll instead of halting. Closing the
//! file (dropping the guard, or the process ending however it ends) lifts the bound, so nothing
//! outlives the run. Only root may open the device: anywhere else the guard records why not and
//! the run goes on with the OS's default.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use triebench_record::file::{read_json, write_json};
pub use triebench_record::layout::{cpu_idle_path as record_path, HEADLINE_DIR};
use triebench_record::{CpuIdle, CpuIdleRecord, RecordError};

/// Linux's CPU latency QoS device.
pub const DEVICE: &str = "/dev/cpu_dma_latency";

/// Idle CPUs as a run asked, for as long as the guard lives.
#[derive(Debug)]
pub struct CpuIdleGuard {
    /// The open device holding the bound; `None` when nothing is held.
    _held: Option<File>,
    record: CpuIdleRecord,
}

impl CpuIdleGuard {
    /// Asks for `mode`: [`CpuIdle::Poll`] holds [`DEVICE`] at 0 µs, or records why it cannot;
    /// [`CpuIdle::Os`] holds nothing.
    pub fn hold(mode: CpuIdle) -> CpuIdleGuard {
        let (held, detail) = match mode {
            CpuIdle::Os => (None, "the OS's idle states, as asked".to_string()),
            CpuIdle::Poll => match hold_zero() {
                Ok(file) => (Some(file), format!("{DEVICE} held at 0 µs")),
                Err(e) => (None, format!("cannot hold {DEVICE} at 0 µs: {e}")),
            },
        };
        let record = CpuIdleRecord {
            requested: mode,
            held: if held.is_some() {
                CpuIdle::Poll
            } else {
                CpuIdle::Os
            },
            detail,
        };
        CpuIdleGuard {
            _held: held,
            record,
        }
    }

    /// What was asked and what was got.
    pub fn record(&self) -> &CpuIdleRecord {
        &self.record
    }
}

fn hold_zero() -> std::io::Result<File> {
    let mut file = OpenOptions::new().write(true).open(DEVICE)?;
    file.write_all(&0i32.to_ne_bytes())?;
    Ok(file)
}

/// The latency bound in force now, in µs, as [`DEVICE`] reports it (2000000000 when nobody
/// holds one); `None` where the device cannot be read.
pub fn current_bound() -> Option<i32> {
    let mut bytes = [0u8; 4];
    File::open(DEVICE).ok()?.read_exact(&mut bytes).ok()?;
    Some(i32::from_ne_bytes(bytes))
}

/// Saves run `run`'s record; returns its path.
pub fn save(
    criterion_dir: &Path,
    run: &str,
    record: &CpuIdleRecord,
) -> Result<PathBuf, RecordError> {
    let path = record_path(criterion_dir, run);
    write_json(&path, "CPU idle record", record)?;
    Ok(path)
}

/// Reads run `run`'s record, `None` when the run has none (criterion's own runs, older folders).
pub fn load(criterion_dir: &Path, run: &str) -> Result<Option<CpuIdleRecord>, RecordError> {
    read_json(&record_path(criterion_dir, run), "CPU idle record")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No other test in this crate asks for a bound; `scripts/test.sh` holds 0 while the tests
    /// run as root, and then only the guard's own hold can be seen.
    #[test]
    fn poll_holds_the_device_at_zero_while_the_guard_lives() {
        let before = current_bound();
        let guard = CpuIdleGuard::hold(CpuIdle::Poll);
        let record = guard.record().clone();
        assert_eq!(record.requested, CpuIdle::Poll);
        match record.held {
            CpuIdle::Poll => {
                assert_eq!(current_bound(), Some(0), "{record:?}");
                drop(guard);
                assert_eq!(current_bound(), before, "the bound outlived the guard");
            }
            // Not root, or no such device: the record says why, naming the device.
            CpuIdle::Os => assert!(record.detail.contains(DEVICE), "{record:?}"),
        }
    }

    #[test]
    fn os_holds_nothing() {
        let guard = CpuIdleGuard::hold(CpuIdle::Os);
        assert_eq!(guard.record().held, CpuIdle::Os);
        assert!(guard.record().describe().contains("left to the OS"));
    }

    #[test]
    fn records_round_trip_and_a_missing_one_reads_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(load(dir.path(), "tmpfs").expect("load"), None);
        let record = CpuIdleRecord {
            requested: CpuIdle::Poll,
            held: CpuIdle::Os,
            detail: "cannot hold it: permission denied".to_string(),
        };
        save(dir.path(), "tmpfs", &record).expect("save");
        assert_eq!(load(dir.path(), "tmpfs").expect("load"), Some(record));
        std::fs::write(record_path(dir.path(), "disk"), "{").expect("write");
        let err = load(dir.path(), "disk").expect_err("corrupt record read");
        assert!(err.to_string().contains("disk.json"), "{err}");
    }

    #[test]
    fn modes_parse_by_name_only() {
        assert_eq!("poll".parse::<CpuIdle>(), Ok(CpuIdle::Poll));
        assert_eq!("os".parse::<CpuIdle>(), Ok(CpuIdle::Os));
        let err = "fast".parse::<CpuIdle>().expect_err("parsed");
        assert!(err.contains("`fast`") && err.contains("poll"), "{err}");
    }
}
