//! Cached answers must not hide a dead managed server: each transaction checks that its server
//! still runs on its first answer from the cache and then at most once per millisecond, so a
//! read fails as promptly as a round trip would, without a system call per read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::server::RedisServer;
use crate::error::KvResult;

/// How often cached answers of one transaction check that the managed server still runs.
const EVERY: Duration = Duration::from_millis(1);

/// A transaction's view of its managed server (none with `REDIS_URL`).
#[derive(Debug)]
pub(crate) struct Liveness<'s> {
    server: Option<&'s RedisServer>,
    born: Instant,
    /// Nanoseconds after `born` of the last check; `u64::MAX`: never checked.
    last: AtomicU64,
}

impl<'s> Liveness<'s> {
    /// Liveness checks against `server`.
    pub fn new(server: Option<&'s RedisServer>) -> Liveness<'s> {
        Liveness {
            server,
            born: Instant::now(),
            last: AtomicU64::new(u64::MAX),
        }
    }

    /// Fails if the server has exited, checking only when due.
    pub fn check(&self) -> KvResult<()> {
        let Some(server) = self.server else {
            return Ok(());
        };
        let now = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
        let last = self.last.load(Ordering::Relaxed);
        if last != u64::MAX && now.saturating_sub(last) < EVERY.as_nanos() as u64 {
            return Ok(());
        }
        self.last.store(now, Ordering::Relaxed);
        server.check_running()
    }
}
