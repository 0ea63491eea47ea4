//! One direction of a proxied connection: read chunks, hold each for its delay, write them on
//! in order.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Bytes read at most per chunk.
const CHUNK: usize = 64 << 10;

/// Below this much time left, [`sleep_until`] yields instead of sleeping: a sleep overshoots by
/// tens of microseconds, more on a loaded host.
const SPIN: Duration = Duration::from_micros(120);

/// What one direction adds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Direction {
    pub delay: Duration,
    pub jitter: Duration,
    pub bandwidth: Option<u64>,
    pub seed: u64,
}

impl Direction {
    fn holds(&self) -> bool {
        !self.delay.is_zero() || !self.jitter.is_zero() || self.bandwidth.is_some()
    }
}

/// Sleeps until `deadline`, to within a few microseconds where the host allows.
pub(crate) fn sleep_until(deadline: Instant) {
    loop {
        let now = Instant::now();
        let Some(left) = deadline.checked_duration_since(now) else {
            return;
        };
        if left.is_zero() {
            return;
        }
        if left > SPIN {
            thread::sleep(left - SPIN);
        } else {
            thread::yield_now();
        }
    }
}

/// A small generator for jitter draws (xorshift64*): no need for a cryptographic one.
struct Draws(u64);

impl Draws {
    fn below(&mut self, bound: Duration) -> Duration {
        if bound.is_zero() {
            return Duration::ZERO;
        }
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        let nanos = bound.as_nanos().min(u128::from(u64::MAX)) as u64;
        Duration::from_nanos(x % (nanos + 1))
    }
}

/// A connection the proxy forwards: a unix socket, or (a client of [`DelayProxy::start_tcp`])
/// a TCP one.
///
/// [`DelayProxy::start_tcp`]: crate::DelayProxy::start_tcp
pub(crate) trait Stream: Read + Write + Send + Sized + 'static {
    /// Another handle on the same connection.
    fn dup(&self) -> io::Result<Self>;
    /// Shuts one or both directions down (errors ignored: the peer may be gone).
    fn shut(&self, how: Shutdown);
}

impl Stream for UnixStream {
    fn dup(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn shut(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
}

impl Stream for TcpStream {
    fn dup(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn shut(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
}

/// Forwards `from` to `to` until `from` ends, then shuts `to`'s write side. Runs on the calling
/// thread (plus a writer thread when the direction holds chunks).
pub(crate) fn forward<A: Stream, B: Stream>(mut from: A, mut to: B, dir: Direction) {
    let mut buf = vec![0u8; CHUNK];
    if !dir.holds() {
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        to.shut(Shutdown::Write);
        return;
    }
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    let writer = thread::spawn(move || {
        for (deadline, chunk) in rx {
            sleep_until(deadline);
            if to.write_all(&chunk).is_err() {
                break;
            }
        }
        to.shut(Shutdown::Write);
    });
    let mut draws = Draws(dir.seed | 1);
    let mut wire_free = Instant::now();
    let mut last = Instant::now();
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        let now = Instant::now();
        let mut sent = now;
        if let Some(bw) = dir.bandwidth {
            let on_wire = Duration::from_secs_f64(n as f64 / bw as f64);
            sent = now.max(wire_free) + on_wire;
            wire_free = sent;
        }
        let deadline = (sent + dir.delay + draws.below(dir.jitter)).max(last);
        last = deadline;
        if tx.send((deadline, buf[..n].to_vec())).is_err() {
            break;
        }
    }
    drop(tx);
    let _ = writer.join();
}
