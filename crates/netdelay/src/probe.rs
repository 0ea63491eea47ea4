//! [`probe`]: what the proxy adds to a round trip, measured with a one-byte echo server.

use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use crate::delay::DelaySpec;
use crate::proxy::DelayProxy;

/// Round trips of a one-byte ping-pong, straight to an echo server and through a proxy.
#[derive(Debug, Clone)]
pub struct ProbeResult {
    /// What the proxy was set to add.
    pub spec: DelaySpec,
    /// Median round trip straight to the echo server.
    pub direct_median: Duration,
    /// Median round trip through the proxy.
    pub proxied_median: Duration,
    /// 99th percentile through the proxy.
    pub proxied_p99: Duration,
    /// Round trips measured each way.
    pub round_trips: usize,
}

impl ProbeResult {
    /// What the proxy added beyond its set delay, at the median (may be slightly negative on a
    /// noisy host: then zero).
    pub fn overhead(&self) -> Duration {
        self.proxied_median
            .saturating_sub(self.direct_median)
            .saturating_sub(self.spec.rtt())
    }
}

fn echo_server(listener: UnixListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { return };
        thread::spawn(move || {
            let mut byte = [0u8; 1];
            while matches!(stream.read(&mut byte), Ok(1)) {
                if stream.write_all(&byte).is_err() {
                    break;
                }
            }
        });
    }
}

fn ping_pong(path: &Path, n: usize) -> io::Result<Vec<Duration>> {
    let mut stream = UnixStream::connect(path)?;
    let mut byte = [7u8; 1];
    let mut times = Vec::with_capacity(n);
    for i in 0..n + n / 10 {
        let start = Instant::now();
        stream.write_all(&byte)?;
        stream.read_exact(&mut byte)?;
        if i >= n / 10 {
            times.push(start.elapsed());
        }
    }
    times.sort();
    Ok(times)
}

/// Measures `round_trips` one-byte round trips to an echo server in `dir` (a private directory
/// of the caller's), straight and through a [`DelayProxy`] with `spec`.
pub fn probe(dir: &Path, spec: DelaySpec, round_trips: usize) -> io::Result<ProbeResult> {
    let n = round_trips.max(10);
    let echo_path = dir.join("echo.sock");
    let proxy_path = dir.join("proxy.sock");
    let listener = UnixListener::bind(&echo_path)?;
    // The echo server's thread ends with the process; its socket file is removed below.
    thread::spawn(move || echo_server(listener));
    let result = (|| {
        let direct = ping_pong(&echo_path, n)?;
        let proxy = DelayProxy::start(&proxy_path, &echo_path, spec)?;
        let proxied = ping_pong(&proxy_path, n)?;
        drop(proxy);
        Ok(ProbeResult {
            spec,
            direct_median: direct[direct.len() / 2],
            proxied_median: proxied[proxied.len() / 2],
            proxied_p99: proxied[proxied.len() * 99 / 100],
            round_trips: n,
        })
    })();
    let _ = std::fs::remove_file(&echo_path);
    result
}
