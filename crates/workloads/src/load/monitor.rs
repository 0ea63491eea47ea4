//! What a load run samples once per second besides latencies: memory, CPU and disk use. The
//! run asks a [`Monitor`]; the CLI passes one reading `/proc` and the store's directory
//! (`triebench-measure`'s `ProcMonitor`), tests pass [`NoMonitor`].

use serde::{Deserialize, Serialize};

/// Resource use at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ResourceSample {
    /// Resident memory of the process and the backend's server process, bytes.
    pub rss_bytes: u64,
    /// CPU used since the previous sample by the same processes, percent of one core.
    pub cpu_pct: f64,
    /// Bytes the store's directory occupies on disk.
    pub store_bytes: u64,
}

/// Samples resource use; called once per second of a run from a sampling thread.
pub trait Monitor: Send {
    /// Resource use now (CPU since the previous call).
    fn sample(&mut self) -> ResourceSample;
}

/// A monitor that measures nothing (all zeros).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMonitor;

impl Monitor for NoMonitor {
    fn sample(&mut self) -> ResourceSample {
        ResourceSample::default()
    }
}
