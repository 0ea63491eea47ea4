//! The `redis` and `redis-aof` profiles: tables kept in a Redis server.
//!
//! # Server
//!
//! By default the store starts its own `redis-server` ([`RedisServer`]), reachable only by its
//! owner (a unix socket in a private directory, a random password, no TCP port), with its data
//! in the store's directory, and kills it when the store drops. With [`RedisOptions::url`] (`REDIS_URL`) it
//! connects to an existing server instead.
//!
//! # Durability
//!
//! - `redis`: no persistence (`--save ""`, `--appendonly no`). Everything is lost when the server
//!   stops, which for a managed server is when the store drops: reopening starts empty.
//! - `redis-aof`: `--appendonly yes --appendfsync always`. The server appends each commit to its
//!   AOF (`<dir>/appendonlydir/`) and fsyncs it before answering, so a commit that returned `Ok`
//!   survives power loss; reopening the directory starts a server that replays the AOF. With
//!   `REDIS_URL`, the store checks at open that the server runs with those two settings and
//!   refuses it otherwise.
//!
//! # Data model
//!
//! Keys of a store live under a namespace derived from its canonical directory path,
//! `tb:{<16 hex>}:`, so stores sharing a server do not collide and reopening a directory finds its
//! data. Per table, `<ns><table>:v` is a HASH key -> value (`get` = `HGET`, `count` = `HLEN`),
//! `<ns><table>:k` a ZSET of the keys, all scored 0, walked in byte order with `ZRANGEBYLEX`, and
//! `<ns><table>:n` a LIST of the keys changed since the ZSET was last updated: commits append to
//! it, scans first fold it into the ZSET (inside the same atomic script), so a commit pays for
//! the order only when something scans (the trie never does).
//!
//! # Transactions
//!
//! The writer (one at a time per store, by a mutex) buffers changes in an ordered in-memory
//! overlay. `commit` is one round trip. A transaction that `insert`ed keys runs a Lua script
//! that first checks that every such key is absent (else it applies nothing and the commit
//! returns [`KvError::DuplicateEntry`]), then applies every put (`HSET`) and delete (`HDEL`) and
//! lists the changed keys for the order (`RPUSH`). A transaction of puts and deletes only (every
//! trie commit) sends the same commands as one `MULTI`/`EXEC` (private module `transaction`),
//! which the server runs without the interpreter's cost. Both run atomically, so no client ever
//! sees half a commit. An `insert` of a key the same transaction already put fails at once.
//! Dropping the writer discards the overlay.
//!
//! A commit whose connection fails (server killed, timeout) returns an error; whether the server
//! applied it before failing cannot be known. A script or transaction stopped midway by the
//! server (for example by `maxmemory`) may have applied part of a commit: Redis rolls neither
//! back.
//!
//! # Cache
//!
//! With a managed server, the store keeps what it committed and read in memory (the private
//! module `cache` states the contract), so the trie's reads of nodes it wrote moments ago cost no
//! round trip; each commit is still one atomic round trip. With `REDIS_URL` (other
//! clients may write) and with [`RedisStore::open_uncached`] (profile `redis-uncached`) every
//! read is a round trip.
//!
//! # Readers
//!
//! Redis has no snapshots: readers are read-committed. A single call (`get`, `count`, one scan
//! page of up to 1000 keys or 4 MiB) sees whole commits only, but two calls of one reader may
//! straddle a commit. Opening a reader costs no round trip.
//!
//! # Failures
//!
//! Connections have a 5 s connect timeout and 30 s read/write timeouts, so a dead or stuck
//! server yields [`KvError::Backend`] naming the server and what to check, never a hang. A store
//! whose managed server has exited refuses new readers and writers.

mod aof_tail;
mod cache;
mod committed;
mod conn;
mod liveness;
mod namespace;
mod overlay;
mod reader;
mod replica;
mod replica_peer;
mod scripts;
mod server;
mod shared_pair;
mod transaction;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use conn::redact;
pub use reader::RedisReader;
pub use replica::{REPLICA_DIR, REPLICA_USER, WAIT_TIMEOUT};
pub use server::RedisServer;
pub(crate) use shared_pair::SharedPair;
pub use writer::RedisWriter;

use committed::Shared;
use conn::{Lease, Origin, Pool};
use overlay::TableOverlay;
use scripts::Scripts;

use crate::error::{KvError, KvResult};
use crate::store::{validate_tables, Store};

/// How [`RedisStore::assemble`] sets a store up.
pub(crate) struct Assembly<'a> {
    /// Check that a server given by URL runs with `redis-aof`'s settings.
    pub(crate) verify_aof: bool,
    /// Keep a node cache: only for a store whose keys no other client writes.
    pub(crate) cached: bool,
    /// The managed server a store without one of its own reaches (a shared primary), named
    /// in its errors.
    pub(crate) shared_server: Option<&'a RedisServer>,
}

/// How to reach the Redis server of a store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedisOptions {
    /// An existing server (`REDIS_URL`, e.g. `redis://127.0.0.1:6379/`; credentials in it, as
    /// `user:pass@` or `?pass=`, are redacted in every message); `None` starts a managed
    /// `redis-server` with its data in the store's directory.
    pub url: Option<String>,
    /// The `redis-aof` profile: `appendonly yes` and `appendfsync always` (fsync per commit).
    /// A managed server is started so; a server given by `url` must already run so.
    pub append_only: bool,
    /// A delay proxy between the store and its managed server (`--net-rtt`); with `url`, an
    /// error.
    pub net: Option<triebench_netdelay::DelaySpec>,
}

/// A store kept in Redis (profiles `redis` and `redis-aof`); see the [module docs](self).
#[derive(Debug)]
pub struct RedisStore {
    shared: Shared,
    writer_lock: Mutex<()>,
    dir: PathBuf,
    prefix: String,
    url: String,
    /// The delay proxy to the managed server, if asked for: dropped after the connections and
    /// before the server.
    hop: Option<crate::net_hop::NetHop>,
    /// The managed server, if any: declared last so it outlives the connections.
    server: Option<RedisServer>,
    /// The replica of `redis-replica-wait` and its link (`replica`).
    replica: Option<Box<replica::Replica>>,
}

impl RedisStore {
    /// The delay proxy's setting between this store and its managed server, `None` without one.
    pub fn net(&self) -> Option<triebench_netdelay::DelaySpec> {
        self.hop.as_ref().map(|h| h.spec())
    }

    /// Opens the store for directory `dir` (created if missing) with `tables`.
    ///
    /// Without `options.url`, starts a managed `redis-server` in `dir`
    /// ([`KvError::RedisServerMissing`] if it is not installed). With it, connects to that
    /// server and checks that it answers. The directory names the store's key namespace either
    /// way.
    pub fn open(dir: &Path, tables: &[&str], options: RedisOptions) -> KvResult<RedisStore> {
        Self::open_with_cache(dir, tables, options, true)
    }

    /// Like [`RedisStore::open`], but every read asks the server, even with a managed server
    /// (profile `redis-uncached`): what reads cost as round trips.
    pub fn open_uncached(
        dir: &Path,
        tables: &[&str],
        options: RedisOptions,
    ) -> KvResult<RedisStore> {
        Self::open_with_cache(dir, tables, options, false)
    }

    fn open_with_cache(
        dir: &Path,
        tables: &[&str],
        options: RedisOptions,
        cached: bool,
    ) -> KvResult<RedisStore> {
        let names = validate_tables(tables)?;
        std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
        let dir = dir
            .canonicalize()
            .map_err(|e| KvError::io("resolve directory", dir, e))?;
        if options.url.is_some() && options.net.is_some() {
            return Err(KvError::backend(
                "redis",
                "a network delay (--net-rtt) applies to a managed server only, not to REDIS_URL",
            ));
        }
        let (server, url, hop) = match &options.url {
            Some(url) => (None, url.clone(), None),
            None => {
                let (server, url, hop) = Self::start_managed(&dir, &options)?;
                (Some(server), url, hop)
            }
        };
        let how = Assembly {
            verify_aof: options.url.is_some() && options.append_only,
            cached: cached && server.is_some(),
            shared_server: None,
        };
        Self::assemble(dir, names, server, url, hop, how)
    }

    /// Starts a managed server in `dir` (canonical) and, with `options.net`, a delay proxy in
    /// front of it: the server, the URL that reaches it (through the proxy) and the proxy.
    pub(crate) fn start_managed(
        dir: &Path,
        options: &RedisOptions,
    ) -> KvResult<(RedisServer, String, Option<crate::net_hop::NetHop>)> {
        let server = RedisServer::start(dir, options.append_only)?;
        let mut url = server.url().to_string();
        let mut hop = None;
        if let Some(spec) = options.net {
            let socket = server.socket_path();
            let h = crate::net_hop::NetHop::start(socket, "redis.sock", spec)?;
            url = url.replace(
                &socket.display().to_string(),
                &h.listen_path().display().to_string(),
            );
            hop = Some(h);
        }
        Ok((server, url, hop))
    }

    /// The store on a server already reached: `url` (through `hop` when there is one), the
    /// managed `server` if any, set up as `how` says.
    pub(crate) fn assemble(
        dir: PathBuf,
        names: Vec<String>,
        server: Option<RedisServer>,
        url: String,
        hop: Option<crate::net_hop::NetHop>,
        how: Assembly<'_>,
    ) -> KvResult<RedisStore> {
        let origin = match server.as_ref().or(how.shared_server) {
            None => Origin::Url(conn::redact(&url)),
            Some(server) => Origin::Managed {
                dir: server.dir().to_path_buf(),
                url: conn::redact(&url),
                pid: server.pid(),
                log: server.log_path().display().to_string(),
            },
        };
        let prefix = namespace::prefix_for(&dir);
        let keys = namespace::table_keys(&prefix, &names);
        let pool = Pool::new(&url, origin)?;
        let scripts = Scripts::new();
        let cache = {
            let lease = Lease::new(&pool)?;
            if how.verify_aof {
                verify_append_only(&lease, &url)?;
            }
            lease.run("load scripts", |con| scripts.load(con))?;
            if how.cached {
                // A table empty now has every later key in the cache while nothing is evicted.
                let mut empty = Vec::with_capacity(keys.len());
                for table in &keys {
                    let len: u64 = lease.run("HLEN", |con| {
                        redis::cmd("HLEN").arg(&table.values).query(con)
                    })?;
                    empty.push(len == 0);
                }
                Some(cache::NodeCache::new(&empty, cache::DEFAULT_BUDGET))
            } else {
                None
            }
        };
        Ok(RedisStore {
            shared: Shared {
                names,
                keys,
                pool,
                scripts,
                cache,
                wait: None,
                far: server.is_none() && how.shared_server.is_none() || hop.is_some(),
            },
            writer_lock: Mutex::new(()),
            dir,
            prefix,
            url: conn::redact(&url),
            hop,
            server,
            replica: None,
        })
    }

    /// The managed server, or `None` when the store uses a server given by URL.
    pub fn server(&self) -> Option<&RedisServer> {
        self.server.as_ref()
    }

    /// The store's directory (canonical path), which also names its key namespace.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The prefix of every Redis key of this store, `tb:{<16 hex>}:`.
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    /// The server's URL (any password redacted).
    pub fn url(&self) -> &str {
        &self.url
    }

    fn check_server(&self) -> KvResult<()> {
        match &self.server {
            Some(server) => server.check_running(),
            None => Ok(()),
        }
    }
}

impl Store for RedisStore {
    type Reader<'s> = RedisReader<'s>;
    type Writer<'s> = RedisWriter<'s>;

    fn reader(&self) -> KvResult<RedisReader<'_>> {
        self.check_server()?;
        Ok(RedisReader {
            shared: &self.shared,
            lease: Lease::new(&self.shared.pool)?,
            liveness: liveness::Liveness::new(self.server.as_ref()),
        })
    }

    fn writer(&self) -> KvResult<RedisWriter<'_>> {
        // A writer that panicked left nothing behind on the server (its overlay is dropped), so a
        // poisoned lock is safe to take over.
        let exclusive = self
            .writer_lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.check_server()?;
        Ok(RedisWriter {
            shared: &self.shared,
            lease: Lease::new(&self.shared.pool)?,
            liveness: liveness::Liveness::new(self.server.as_ref()),
            overlay: (0..self.shared.names.len())
                .map(|_| TableOverlay::default())
                .collect(),
            _exclusive: exclusive,
        })
    }

    fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(RedisServer::pid)
    }

    fn table_names(&self) -> &[String] {
        &self.shared.names
    }
}

/// Refuses an external server that would not make `redis-aof` commits durable.
fn verify_append_only(lease: &Lease<'_>, url: &str) -> KvResult<()> {
    let setting = |name: &'static str| {
        lease.run("CONFIG GET", |con| {
            let pair: Vec<String> = redis::cmd("CONFIG").arg("GET").arg(name).query(con)?;
            Ok(pair.get(1).cloned().unwrap_or_default())
        })
    };
    let appendonly = setting("appendonly")?;
    let appendfsync = setting("appendfsync")?;
    if appendonly == "yes" && appendfsync == "always" {
        return Ok(());
    }
    Err(KvError::backend(
        "redis",
        format!(
            "profile redis-aof needs a server with appendonly=yes and appendfsync=always, but \
             {} has appendonly={appendonly} appendfsync={appendfsync}: run \
             `CONFIG SET appendonly yes` and `CONFIG SET appendfsync always` on it, or unset \
             REDIS_URL to let triebench start its own server",
            conn::redact(url)
        ),
    ))
}
