//! `NetHop`: the emulated network between a store and its managed server, a
//! [`DelayProxy`](triebench_netdelay::DelayProxy) listening in a private directory of its own,
//! and [`net_from_env`], the delay a run asked for (`--net-rtt`, recorded with its results).

use std::time::Duration;

use triebench_netdelay::DelaySpec;

#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
pub(crate) use hop::NetHop;

use crate::error::{KvError, KvResult};

/// Round trip added between a store and its managed server (`500us`, `1ms`, `0`: proxied
/// without delay). Unset: no proxy.
pub const NET_RTT_ENV: &str = "TRIEBENCH_NET_RTT";
/// Jitter added to each chunk's delay, uniform in `0..=` this (`50us`).
pub const NET_JITTER_ENV: &str = "TRIEBENCH_NET_JITTER";
/// Bandwidth of each direction (`100mbit`, or bytes per second).
pub const NET_BANDWIDTH_ENV: &str = "TRIEBENCH_NET_BANDWIDTH";

/// Round trip added on the replication link between a standby profile's primary and standby
/// (`5ms`, `0`), when it should differ from [`NET_RTT_ENV`] (a far standby). Unset: the
/// replication link gets [`NET_RTT_ENV`]'s delay, or none.
pub const STANDBY_RTT_ENV: &str = "TRIEBENCH_STANDBY_RTT";

/// The delay of a standby's replication link: [`STANDBY_RTT_ENV`] when set, else `client`'s
/// (the store's own link to its server), so one `--net-rtt` delays both links alike.
pub fn standby_link_from_env(client: Option<DelaySpec>) -> KvResult<Option<DelaySpec>> {
    match std::env::var(STANDBY_RTT_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        None => Ok(client),
        Some(rtt) => DelaySpec::parse_duration(&rtt)
            .map(|d| Some(DelaySpec::from_rtt(d)))
            .map_err(|e| KvError::backend("net", format!("{STANDBY_RTT_ENV}: {e}"))),
    }
}

/// The delay asked for in the environment ([`NET_RTT_ENV`] and its companions), `None` when
/// unset: then stores reach their managed server straight.
pub fn net_from_env() -> KvResult<Option<DelaySpec>> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let bad = |e: triebench_netdelay::DelaySpecError| KvError::backend("net", e.to_string());
    let Some(rtt) = var(NET_RTT_ENV) else {
        if var(NET_JITTER_ENV).is_some() || var(NET_BANDWIDTH_ENV).is_some() {
            return Err(KvError::backend(
                "net",
                format!(
                    "{NET_JITTER_ENV} and {NET_BANDWIDTH_ENV} need {NET_RTT_ENV} (it may be 0)"
                ),
            ));
        }
        return Ok(None);
    };
    let mut spec = DelaySpec::from_rtt(DelaySpec::parse_duration(&rtt).map_err(bad)?);
    if let Some(j) = var(NET_JITTER_ENV) {
        spec.jitter = DelaySpec::parse_duration(&j).map_err(bad)?;
    }
    if let Some(b) = var(NET_BANDWIDTH_ENV) {
        spec.bandwidth = Some(DelaySpec::parse_bandwidth(&b).map_err(bad)?);
    }
    Ok(Some(spec))
}

/// A short text of a delay for tables and records: `rtt 500 µs` and any jitter or bandwidth.
pub fn describe(spec: Option<DelaySpec>) -> String {
    match spec {
        None => "none (straight to the server)".to_string(),
        Some(spec) => spec.to_string(),
    }
}

/// A round trip of `micros` microseconds as a spec (for tests and callers without the env).
pub fn rtt_micros(micros: u64) -> DelaySpec {
    DelaySpec::from_rtt(Duration::from_micros(micros))
}

#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
mod hop {
    use std::path::Path;

    use triebench_netdelay::{DelayProxy, DelaySpec};

    use crate::error::{KvError, KvResult};
    use crate::private_dir::PrivateDir;

    /// A delay proxy in front of a managed server's unix socket, listening in a fresh private 0700
    /// directory under `/tmp` (only this process's user, and root, can reach it). Dropped before
    /// the server: the proxy stops and its directory goes.
    #[derive(Debug)]
    pub(crate) struct NetHop {
        // Dropped first: the listener and connections close before the directory is removed.
        proxy: DelayProxy,
        // Held for its drop, which removes the directory; read by the PostgreSQL fixtures.
        #[cfg_attr(not(feature = "postgres-db"), allow(dead_code))]
        dir: PrivateDir,
    }

    impl NetHop {
        /// Starts a proxy listening at `<private dir>/<name>` that forwards to `target`.
        pub(crate) fn start(target: &Path, name: &str, spec: DelaySpec) -> KvResult<NetHop> {
            Self::start_for(target, name, spec, None)
        }

        /// [`NetHop::start`] for a client that runs as `owner` (a standby running as the
        /// server's user): the directory and the socket are handed to it, so it alone (and
        /// root) can connect.
        pub(crate) fn start_for(
            target: &Path,
            name: &str,
            spec: DelaySpec,
            owner: Option<crate::server_user::ServerUser>,
        ) -> KvResult<NetHop> {
            let dir = PrivateDir::create("net", owner)?;
            let listen = dir.path().join(name);
            let proxy = DelayProxy::start(&listen, target, spec)
                .map_err(|e| KvError::io("start the delay proxy at", &listen, e))?;
            if let Some(user) = owner {
                // In a fresh 0700 directory only root could have swapped the socket.
                std::os::unix::fs::lchown(&listen, Some(user.uid), Some(user.gid))
                    .map_err(|e| KvError::io("hand over to the server's user", &listen, e))?;
            }
            Ok(NetHop { proxy, dir })
        }

        /// What the proxy adds.
        pub(crate) fn spec(&self) -> DelaySpec {
            self.proxy.spec()
        }

        /// The private directory the proxy listens in.
        #[cfg(feature = "postgres-db")]
        pub(crate) fn dir(&self) -> &Path {
            self.dir.path()
        }

        /// Where clients connect.
        #[cfg(feature = "redis-db")]
        pub(crate) fn listen_path(&self) -> std::path::PathBuf {
            self.proxy.listen_path().to_path_buf()
        }
    }
}

/// Exports a network setting (`--net-rtt`, `--net-jitter`, `--net-bandwidth`, each when given)
/// where every store this process opens, and every child it starts, reads it; returns it as
/// checked (`None`: stores reach their server straight). Call before any thread starts.
pub fn export_net_setting(
    rtt: Option<&str>,
    jitter: Option<&str>,
    bandwidth: Option<&str>,
) -> KvResult<Option<DelaySpec>> {
    for (name, value) in [
        (NET_RTT_ENV, rtt),
        (NET_JITTER_ENV, jitter),
        (NET_BANDWIDTH_ENV, bandwidth),
    ] {
        if let Some(value) = value {
            std::env::set_var(name, value);
        }
    }
    let spec = net_from_env()?;
    if let Some(spec) = spec {
        eprintln!("net: stores reach their managed server through a delay proxy: {spec}");
    }
    Ok(spec)
}

/// Exports the standby's own link setting (`--standby-rtt`, when given) and returns the link
/// between primary and standby as checked (it defaults to the client's, `client`).
pub fn export_standby_link(
    rtt: Option<&str>,
    client: Option<DelaySpec>,
) -> KvResult<Option<DelaySpec>> {
    if let Some(rtt) = rtt {
        std::env::set_var(STANDBY_RTT_ENV, rtt);
    }
    let link = standby_link_from_env(client)?;
    if let Some(spec) = link {
        eprintln!("net: the standby reaches the primary through a delay proxy: {spec}");
    }
    Ok(link)
}

/// The record of a network setting, for run records, `load.json` and `crash.json` (`None`:
/// stores reached their server straight).
pub fn net_record(spec: Option<DelaySpec>) -> Option<triebench_record::net::NetRecord> {
    spec.map(|s| triebench_record::net::NetRecord {
        rtt_us: s.rtt().as_secs_f64() * 1e6,
        jitter_us: s.jitter.as_secs_f64() * 1e6,
        bandwidth_bytes_per_s: s.bandwidth,
    })
}
