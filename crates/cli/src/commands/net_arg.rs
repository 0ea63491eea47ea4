//! `--net-rtt` (with `--net-jitter`, `--net-bandwidth`): a delay proxy between each store and
//! its managed server (postgres*, redis*), so a run shows what a network hop to the database
//! costs. The setting is exported as `TRIEBENCH_NET_*` for every store this process (and any
//! child it starts) opens, and recorded with the run's results.

use clap::Args;
use triebench_kv::net_hop::export_net_setting;
use triebench_kv::DelaySpec;

use crate::error::CliError;

/// The emulated network to managed servers.
#[derive(Debug, Clone, Default, Args)]
pub struct NetArgs {
    /// Round trip added between each store and its managed server (postgres*, redis*) by a
    /// user-space delay proxy on a private unix socket: `500us`, `0.25ms`, `1ms`; `0` proxies
    /// without delay. Recorded with the results. [default: $TRIEBENCH_NET_RTT, else no proxy]
    #[arg(long, value_name = "DURATION")]
    pub net_rtt: Option<String>,
    /// Jitter added to each chunk's delay, uniform up to this (`50us`); order is kept.
    #[arg(long, value_name = "DURATION", requires = "net_rtt")]
    pub net_jitter: Option<String>,
    /// Bandwidth of each direction of the hop (`100mbit`, or bytes per second).
    #[arg(long, value_name = "RATE", requires = "net_rtt")]
    pub net_bandwidth: Option<String>,
}

impl NetArgs {
    /// Checks the setting and exports it where stores and child processes read it
    /// ([`export_net_setting`]); call before any thread starts.
    pub fn apply(&self) -> Result<Option<DelaySpec>, CliError> {
        Ok(export_net_setting(
            self.net_rtt.as_deref(),
            self.net_jitter.as_deref(),
            self.net_bandwidth.as_deref(),
        )?)
    }
}
