//! [`NetRecord`]: the emulated network a run's stores reached their managed server through
//! (`--net-rtt`), recorded with the run's results.

use serde::{Deserialize, Serialize};

/// The delay proxy's setting between each store and its managed server during a run; absent
/// from a record when the stores reached their server straight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetRecord {
    /// Round trip added (both directions' delays), microseconds; 0: proxied without delay.
    pub rtt_us: f64,
    /// Jitter added to each chunk's delay, uniform up to this many microseconds.
    pub jitter_us: f64,
    /// Bandwidth of each direction in bytes per second, `None`: unlimited.
    #[serde(default)]
    pub bandwidth_bytes_per_s: Option<u64>,
}
