//! The `postgres` and `postgres-async` backends: one PostgreSQL table per declared table
//! (`k bytea primary key, v bytea not null`), in a managed private server whose cluster lives in
//! the directory under test ([`PgServer`]), or in an existing server (`POSTGRES_URL`), each store
//! in its own schema.
//!
//! Modules: `server` (the managed server), `standby` (a replicated pair), `shared_pair` (one
//! pair whose primary holds many stores, each a schema: [`FreshStores`](crate::FreshStores)),
//! `schema` (schema and tables, statements), `reader`
//! (reads, each one prepared statement), `writer` (a writer buffers its changes and commits them
//! in one transaction with one statement per table and kind, arrays bound with `unnest`).
//!
//! `postgres` sets `synchronous_commit=on` (a commit waits for its WAL flush: survives power
//! loss); `postgres-async` sets `synchronous_commit=off` (a server crash loses at most the last
//! moments of commits; the process crashing loses nothing it committed).

mod accounting;
mod reader;
mod redact;
mod schema;
pub(crate) mod server;
mod shared_pair;
mod standby;
mod writer;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::content_cache::{ContentCache, DEFAULT_BUDGET};
use crate::error::{KvError, KvResult};
use crate::store::{validate_tables, Store};

pub use reader::PgReader;
pub use redact::redact;
pub use server::{PgServer, BIN_ENV, STORE_ROLE};
pub(crate) use shared_pair::SharedPair;
pub use standby::{StandbyMode, STANDBY_DIR, STANDBY_NAME};
pub use writer::PgWriter;

use schema::Statements;

/// The managed server's socket in its directory (PostgreSQL's name for port 5432).
pub(crate) const PG_SOCKET: &str = ".s.PGSQL.5432";

/// How a [`PgStore`] is opened.
#[derive(Debug, Clone, Default)]
pub struct PgOptions {
    /// An existing server (`POSTGRES_URL`) instead of a managed one.
    pub url: Option<String>,
    /// `synchronous_commit=off` (`postgres-async`).
    pub asynchronous: bool,
    /// No [`ContentCache`] for the trie's nodes (`postgres-uncached`): every node read is a
    /// round trip, as it was before the cache.
    pub uncached: bool,
    /// A delay proxy between the store and its managed server (`--net-rtt`); with `url`, an
    /// error.
    pub net: Option<triebench_netdelay::DelaySpec>,
}

/// A connection plus its prepared statements.
pub(crate) struct Conn {
    pub(crate) client: postgres::Client,
    pub(crate) stmts: Statements,
}

/// A store in PostgreSQL.
pub struct PgStore {
    conn: Mutex<Conn>,
    names: Vec<String>,
    writer_lock: Mutex<()>,
    schema: String,
    /// The trie's nodes by hash, unless the profile measures uncached reads.
    content: Option<ContentCache>,
    /// The delay proxy to the managed server, if asked for: dropped after the connection and
    /// before the server.
    hop: Option<crate::net_hop::NetHop>,
    /// Requests sent to the server and waited for (each a round trip), for
    /// [`PgStore::round_trips`].
    trips: AtomicU64,
    // Dropped after the connection and proxy: the connection closes before the server stops.
    server: Option<PgServer>,
    /// The standby of a replicated pair (`standby`): dropped after the primary, which ships
    /// what it has before it stops.
    /// Boxed: a pair's store is rare, and the store is a variant of `AnyStore`.
    standby: Option<Box<standby::Standby>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("schema", &self.schema)
            .field("names", &self.names)
            .finish_non_exhaustive()
    }
}

impl PgStore {
    /// Opens (creating if needed) a store with `tables` for the directory `dir`.
    pub fn open(dir: &Path, tables: &[&str], options: PgOptions) -> KvResult<PgStore> {
        let names = validate_tables(tables)?;
        if options.url.is_some() && options.net.is_some() {
            return Err(KvError::backend(
                "postgres",
                "a network delay (--net-rtt) applies to a managed server only, not to \
                 POSTGRES_URL",
            ));
        }
        let (config, server, schema) = match &options.url {
            Some(url) => {
                let config = parse_url(url)?;
                (config, None, schema::schema_for_dir(dir)?)
            }
            None => {
                let server = PgServer::start(dir)?;
                (server.config(), Some(server), "triebench".to_string())
            }
        };
        let (config, hop) = match (&server, options.net) {
            (Some(server), Some(spec)) => {
                let target = server.socket_dir().join(PG_SOCKET);
                let hop = crate::net_hop::NetHop::start(&target, PG_SOCKET, spec)?;
                let mut config = postgres::Config::new();
                config
                    .host_path(hop.dir())
                    .user(STORE_ROLE)
                    .dbname("postgres");
                (config, Some(hop))
            }
            _ => (config, None),
        };
        let level = if options.asynchronous { "off" } else { "on" };
        let conn = schema::connect(config, &schema, &names, level)?;
        Ok(PgStore {
            conn: Mutex::new(conn),
            names,
            writer_lock: Mutex::new(()),
            schema,
            hop,
            trips: AtomicU64::new(0),
            content: (!options.uncached).then(|| ContentCache::new(DEFAULT_BUDGET)),
            server,
            standby: None,
        })
    }

    /// The managed server, `None` with `POSTGRES_URL`.
    pub fn server(&self) -> Option<&PgServer> {
        self.server.as_ref()
    }

    /// The delay proxy's setting between this store and its managed server, `None` without one.
    pub fn net(&self) -> Option<triebench_netdelay::DelaySpec> {
        self.hop.as_ref().map(|h| h.spec())
    }

    /// The schema holding this store's tables.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// How many requests this store has sent its server and waited for since it was opened
    /// (statements, `BEGIN`, `COMMIT`; the connection's setup not counted): each one round trip,
    /// the unit a network hop charges.
    pub fn round_trips(&self) -> u64 {
        self.trips.load(Ordering::Relaxed)
    }

    /// Counts `n` round trips to the server.
    pub(crate) fn trip(&self, n: u64) {
        self.trips.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Conn> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Maps a client error of this store onto [`KvError`]. A closed connection to a managed
    /// server says what happened to the server (exited, or its backend process gone) and where
    /// its log is, as the client's "error communicating with the server" does not.
    pub(crate) fn error(&self, action: &str, e: postgres::Error) -> KvError {
        let Some(server) = &self.server else {
            return pg_err(action, e);
        };
        let running = server.is_running();
        if running && !e.is_closed() {
            return pg_err(action, e);
        }
        let what = if running {
            format!(
                "the managed server (pid {}) runs, but this connection's backend process is gone",
                server.pid()
            )
        } else {
            format!("the managed server (pid {}) has exited", server.pid())
        };
        KvError::backend(
            "postgres",
            format!(
                "{action}: {}; {what} (see its log {})",
                describe(&e),
                server.log_path().display()
            ),
        )
    }
}

impl Store for PgStore {
    type Reader<'s> = PgReader<'s>;
    type Writer<'s> = PgWriter<'s>;

    fn reader(&self) -> KvResult<PgReader<'_>> {
        Ok(PgReader { store: self })
    }

    fn writer(&self) -> KvResult<PgWriter<'_>> {
        let exclusive = self.writer_lock.lock().unwrap_or_else(|p| p.into_inner());
        Ok(PgWriter::new(self, exclusive))
    }

    fn table_names(&self) -> &[String] {
        &self.names
    }

    fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(PgServer::pid)
    }

    fn content_cache(&self) -> Option<&ContentCache> {
        self.content.as_ref()
    }

    fn space(&self) -> KvResult<Option<triebench_record::space::StoreSpace>> {
        self.account_space().map(Some)
    }
}

/// Drops the schema of the store kept for `dir` on the server at `url` (a store opened with
/// [`PgOptions::url`]), with its tables: such a store's data lives in the server, not in the
/// directory, so removing the directory alone would leave it there. No store for `dir`: nothing.
pub fn drop_store(dir: &Path, url: &str) -> KvResult<()> {
    let Some(name) = schema::existing_schema(dir) else {
        return Ok(());
    };
    let config = parse_url(url)?;
    schema::drop_schema(config, &name)
}

/// Parses `POSTGRES_URL` (either form); a bad one is quoted with its password redacted.
fn parse_url(url: &str) -> KvResult<postgres::Config> {
    url.parse().map_err(|e| {
        KvError::backend(
            "postgres",
            format!(
                "bad POSTGRES_URL `{}`: {e} (expected postgres://user@host/db or \
                 host=... user=... dbname=...)",
                redact(url)
            ),
        )
    })
}

/// Maps a client error onto [`KvError`].
pub(crate) fn pg_err(action: &str, e: postgres::Error) -> KvError {
    KvError::backend("postgres", format!("{action}: {}", describe(&e)))
}

/// The client's error with what it wraps: the server's own message for a database error
/// (`FATAL 57P01: terminating connection due to administrator command`), where the client's
/// `Display` says only "db error", or the I/O error under a failed connection.
fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} {}: {}", db.severity(), db.code().code(), db.message());
    }
    match std::error::Error::source(e) {
        Some(cause) if !e.to_string().contains(&cause.to_string()) => format!("{e}: {cause}"),
        _ => e.to_string(),
    }
}
