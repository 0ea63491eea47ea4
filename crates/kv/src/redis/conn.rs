//! Connections: a small pool of synchronous Redis connections with timeouts, leased by readers
//! and the writer, and the mapping of Redis errors to [`KvError`].
//!
//! Every connection has a connect timeout and read/write timeouts, so a dead or hung server
//! surfaces as an error, never as a hang. A connection that saw any error is dropped rather than
//! returned to the pool (its protocol state is unknown); the next operation connects afresh.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use redis::{Connection, ConnectionLike, RedisError};

use crate::error::{KvError, KvResult};

/// How long connecting may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one request may wait to be sent or answered (a large commit fsynced on a slow
/// filesystem must fit in it).
pub(crate) const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 16;

/// Where the store's server is, for error messages.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    /// A server given by `REDIS_URL` (credentials redacted).
    Url(String),
    /// A managed server: its address, pid, log and the directory under test it writes.
    Managed {
        /// The store's directory (where an `redis-aof` server writes its append-only file).
        dir: std::path::PathBuf,
        /// `redis+unix://<socket>?pass=***` (redacted).
        url: String,
        /// The server's process id.
        pid: u32,
        /// Its log file.
        log: String,
    },
}

impl Origin {
    fn address(&self) -> &str {
        match self {
            Origin::Url(url) | Origin::Managed { url, .. } => url,
        }
    }

    fn hint(&self) -> String {
        match self {
            Origin::Url(url) => format!("is the server at REDIS_URL={url} running?"),
            Origin::Managed { pid, log, .. } => {
                format!("is the managed redis-server (pid {pid}) still running? see its log {log}")
            }
        }
    }
}

/// Connections to one server.
pub(crate) struct Pool {
    client: redis::Client,
    idle: Mutex<Vec<Connection>>,
    origin: Origin,
}

impl Pool {
    /// A pool for `url`; connects lazily.
    pub fn new(url: &str, origin: Origin) -> KvResult<Pool> {
        let client = redis::Client::open(url).map_err(|e| {
            KvError::backend(
                "redis",
                format!(
                    "invalid Redis URL `{}`: {e} (expected REDIS_URL=redis://host:port[/db])",
                    redact(url)
                ),
            )
        })?;
        Ok(Pool {
            client,
            idle: Mutex::new(Vec::new()),
            origin,
        })
    }

    /// An idle connection, or a new one.
    pub fn take(&self) -> KvResult<Connection> {
        match self.lock_idle().pop() {
            Some(con) => Ok(con),
            None => self.connect(),
        }
    }

    /// Returns a healthy connection for reuse.
    pub fn give(&self, con: Connection) {
        if con.is_open() {
            let mut idle = self.lock_idle();
            if idle.len() < MAX_IDLE {
                idle.push(con);
            }
        }
    }

    fn connect(&self) -> KvResult<Connection> {
        let con = self
            .client
            .get_connection_with_timeout(CONNECT_TIMEOUT)
            .map_err(|e| self.error("connect", &e))?;
        con.set_read_timeout(Some(IO_TIMEOUT))
            .and_then(|()| con.set_write_timeout(Some(IO_TIMEOUT)))
            .map_err(|e| self.error("set timeouts", &e))?;
        Ok(con)
    }

    fn lock_idle(&self) -> MutexGuard<'_, Vec<Connection>> {
        // A list of idle connections stays consistent whatever a panicking thread was doing.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A [`KvError`] for a failed `action`, saying where the server is and what to check.
    pub fn error(&self, action: &str, e: &RedisError) -> KvError {
        let address = self.origin.address();
        let mut message = format!("{action} on redis at {address} failed: {e}");
        if e.is_timeout() {
            message.push_str(&format!(
                " (no answer within {} s; {})",
                IO_TIMEOUT.as_secs(),
                self.origin.hint()
            ));
        } else if e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() {
            message.push_str(&format!(" ({})", self.origin.hint()));
            // redis-server exits when it cannot write its append-only file.
            if let Origin::Managed { dir, .. } = &self.origin {
                if let Some(full) = KvError::disk_full_if_low(dir, &message) {
                    return full;
                }
            }
        }
        KvError::backend("redis", message)
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("origin", &self.origin)
            .field("idle", &self.lock_idle().len())
            .finish()
    }
}

/// One connection leased from the pool for the life of a reader or writer; given back on drop
/// unless an error made it suspect.
pub(crate) struct Lease<'p> {
    pool: &'p Pool,
    con: Mutex<Option<Connection>>,
}

impl std::fmt::Debug for Lease<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("origin", &self.pool.origin)
            .finish_non_exhaustive()
    }
}

impl<'p> Lease<'p> {
    /// Leases a connection (connecting if none is idle).
    pub fn new(pool: &'p Pool) -> KvResult<Lease<'p>> {
        Ok(Lease {
            pool,
            con: Mutex::new(Some(pool.take()?)),
        })
    }

    /// Runs `f` on the connection. On error the connection is discarded (the next call
    /// reconnects) and the error says which `action` failed.
    pub fn run<T>(
        &self,
        action: &str,
        f: impl FnOnce(&mut Connection) -> Result<T, RedisError>,
    ) -> KvResult<T> {
        let mut slot = self.con.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(self.pool.connect()?);
        }
        let Some(con) = slot.as_mut() else {
            return Err(KvError::backend("redis", "no connection"));
        };
        match f(con) {
            Ok(value) => Ok(value),
            Err(e) => {
                *slot = None;
                Err(self.pool.error(action, &e))
            }
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let slot = self.con.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(con) = slot.take() {
            self.pool.give(con);
        }
    }
}

/// `url` with every credential form the Redis client accepts replaced by `***`, for messages:
/// the userinfo of `redis://user:pass@host` and the `pass`/`password` query parameters (the
/// form `redis+unix:///path?pass=...` takes).
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (main, query) = match rest.split_once('?') {
        Some((main, query)) => (main, Some(query)),
        None => (rest, None),
    };
    let mut out = format!("{scheme}://");
    match main.rsplit_once('@') {
        Some((_credentials, host)) => {
            out.push_str("***@");
            out.push_str(host);
        }
        None => out.push_str(main),
    }
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if is_secret_key(key) => format!("{key}=***"),
                _ => pair.to_string(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    out
}

/// Whether a query parameter carries a password.
fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "pass" || key == "password"
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redact_hides_credentials_only() {
        assert_eq!(redact("redis://127.0.0.1:6379/"), "redis://127.0.0.1:6379/");
        assert_eq!(redact("redis://u:secret@h:1/0"), "redis://***@h:1/0");
        assert_eq!(redact("not a url"), "not a url");
    }

    #[test]
    fn redact_hides_password_query_parameters() {
        assert_eq!(
            redact("redis+unix:///x.sock?pass=SECRET"),
            "redis+unix:///x.sock?pass=***"
        );
        assert_eq!(
            redact("redis+unix:///x.sock?db=1&password=SECRET&user=u"),
            "redis+unix:///x.sock?db=1&password=***&user=u"
        );
        assert_eq!(
            redact("rediss://:SECRET@h:1/0?PASS=SECRET"),
            "rediss://***@h:1/0?PASS=***"
        );
    }
}
