//! What the CPUs did while idle during a headline: held polling or left to the OS, and why.
//!
//! On a virtual machine an idle CPU halts, and waking it (a server's reply reaching a client that
//! sleeps on another CPU) costs the hypervisor's wake-up: on the project's Firecracker VM a
//! loopback `PING` took ~130-350 µs across CPUs against ~30 µs with the CPUs polling. That is
//! neither the storage nor our access pattern, and it varied by 2x within an hour, so the
//! headline holds the CPUs polling when it may (the measuring crate's CPU idle guard) and records here
//! what it got, for the report to state beside the numbers it shaped.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a run asks of idle CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuIdle {
    /// Keep idle CPUs polling (`/dev/cpu_dma_latency` held at 0 µs), as a latency-tuned server
    /// does (tuned's `latency-performance` profile): wake-ups cost what the hardware costs.
    Poll,
    /// Leave idle CPUs to the OS's default: they may halt, and wake-ups cost what they cost.
    Os,
}

impl CpuIdle {
    /// The name used by `--cpu-idle` and the sidecar.
    pub fn name(self) -> &'static str {
        match self {
            CpuIdle::Poll => "poll",
            CpuIdle::Os => "os",
        }
    }
}

impl fmt::Display for CpuIdle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CpuIdle {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "poll" => Ok(CpuIdle::Poll),
            "os" => Ok(CpuIdle::Os),
            other => Err(format!(
                "unknown CPU idle mode `{other}`: use `poll` (hold idle CPUs polling) or `os` \
                 (leave them to the OS)"
            )),
        }
    }
}

/// What a run asked of idle CPUs and what it got (`triebench-runs/headline/<run>.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuIdleRecord {
    /// What the run asked for.
    pub requested: CpuIdle,
    /// What idle CPUs did while it measured: [`CpuIdle::Os`] when polling was asked but refused.
    pub held: CpuIdle,
    /// One line on how: the device and value held, or why polling was refused.
    pub detail: String,
}

impl CpuIdleRecord {
    /// What `record` says, or "not recorded" for a run without one (older files).
    pub fn describe_or_unrecorded(record: Option<&CpuIdleRecord>) -> String {
        record.map_or_else(|| "not recorded".to_string(), CpuIdleRecord::describe)
    }

    /// The record as a sentence for the report, e.g. "idle CPUs polling (...)".
    pub fn describe(&self) -> String {
        match self.held {
            CpuIdle::Poll => format!("idle CPUs held polling ({})", self.detail),
            CpuIdle::Os if self.requested == CpuIdle::Poll => {
                format!(
                    "idle CPUs left to the OS: polling refused ({})",
                    self.detail
                )
            }
            CpuIdle::Os => format!("idle CPUs left to the OS ({})", self.detail),
        }
    }
}
