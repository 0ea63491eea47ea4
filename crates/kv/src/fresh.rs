//! Fresh stores of one profile, one after another: for work that runs each measurement on a new,
//! empty store (the benches, the I/O profile, the phase timings).
//!
//! Each store gets a new directory under one parent (on the filesystem under test), removed with
//! what the store kept elsewhere once its run is over. A managed PostgreSQL server is shared by
//! all of them: a store with its own server pays an `initdb` (2.4 s here) before each run of a
//! scenario that takes milliseconds, so instead one server's cluster lives in a directory under
//! the parent and each fresh store is a schema of it, as on a database server a team runs
//! (`POSTGRES_URL`, which is used instead when set). The replicated profiles share one pair the
//! same way, for the same reason (a pair costs an `initdb`, a `pg_basebackup` or a replica's
//! first sync, and two server starts): `postgres-sync-standby`, `postgres-remote-apply` and
//! `postgres-async-standby` make each fresh store a schema on one primary with its standby,
//! `redis-replica-wait` a key namespace on one primary with its replica. Each store commits as
//! one with a pair of its own would: the mode's `synchronous_commit` in its session, `WAIT 1`
//! after each commit, the same delay proxies (`--net-rtt`, `TRIEBENCH_STANDBY_RTT`). Other
//! profiles open a store of their own per run (a managed `redis-server` starts in
//! milliseconds). A failed run keeps what its error names (a server's log) to be read, and a
//! shared server that died is named: [`FreshStores::try_run`].
//!
//! Everything a fresh store pays once is paid before the visitor gets it, so that a caller
//! timing inside the visit (`triebench headline`, the benches) times the store's work and not
//! its set-up: the directory, the open (files, schema, an `lmdb-async` store's first space
//! reservation, a server's connection; a shared server started with the stores), then
//! [`first_touch`](crate::first_touch::first_touch): one entry written into every table,
//! read and deleted again, so the tables' files and pages, the WAL and the prepared
//! statements exist and the store still holds nothing. A caller that wants the set-up's cost
//! times the whole [`FreshStores::run`] call around its visit.

use std::fmt::Display;
use std::path::{Path, PathBuf};
#[cfg(any(feature = "postgres-db", feature = "redis-db"))]
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(any(feature = "postgres-db", feature = "redis-db"))]
use crate::any_store::AnyStore;
use crate::any_store::StoreVisitor;
use crate::error::{KvError, KvResult};
use crate::first_touch::first_touch;
use crate::profile::Profile;
use crate::spec::BackendSpec;
use crate::store::Store;

/// A source of fresh, empty stores of one profile under one directory.
pub struct FreshStores {
    profile: Profile,
    parent: PathBuf,
    postgres_url: Option<String>,
    /// The delay proxy in front of the shared server (`--net-rtt`): dropped before it.
    #[cfg(feature = "postgres-db")]
    hop: Option<crate::net_hop::NetHop>,
    /// The shared server, then its directory: dropped in that order.
    #[cfg(feature = "postgres-db")]
    server: Option<(crate::postgres::PgServer, tempfile::TempDir)>,
    /// The shared primary and standby of a PostgreSQL standby profile, then their directory.
    #[cfg(feature = "postgres-db")]
    pg_pair: Option<(crate::postgres::SharedPair, tempfile::TempDir)>,
    /// The shared primary and replica of `redis-replica-wait`, then their directory.
    #[cfg(feature = "redis-db")]
    redis_pair: Option<(crate::redis::SharedPair, tempfile::TempDir)>,
    /// Set when a failed visit's error named the shared server's directory (its log), or the
    /// server had died: the directory is then kept when the stores are dropped.
    #[cfg(any(feature = "postgres-db", feature = "redis-db"))]
    keep_server_dir: AtomicBool,
}

/// A visitor that first touches the store ([`first_touch`]) and then hands it to its own.
struct Touched<V>(V);

impl<V: StoreVisitor> StoreVisitor for Touched<V> {
    type Output = KvResult<V::Output>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        first_touch(&store)?;
        Ok(self.0.visit(store))
    }
}

/// A server the stores share, as [`FreshStores::try_run`] reports it.
#[cfg(any(feature = "postgres-db", feature = "redis-db"))]
struct SharedServer<'a> {
    backend: &'static str,
    role: &'static str,
    pid: u32,
    running: bool,
    log: &'a Path,
}

impl FreshStores {
    /// Fresh stores of `profile` under `parent`; starts the shared server a PostgreSQL profile
    /// needs (unless `POSTGRES_URL` names one), or the shared pair a replicated profile needs.
    pub fn new(profile: Profile, parent: &Path) -> KvResult<FreshStores> {
        let spec = BackendSpec::new(profile, Some(parent.to_path_buf()))?;
        #[allow(unused_mut)] // only PostgreSQL builds set it
        let mut postgres_url = spec.postgres_url.clone();
        #[cfg(feature = "postgres-db")]
        let mut server = None;
        #[cfg(feature = "postgres-db")]
        let mut hop = None;
        #[cfg(feature = "postgres-db")]
        if matches!(
            profile,
            Profile::Postgres | Profile::PostgresAsync | Profile::PostgresUncached
        ) && postgres_url.is_none()
        {
            let dir = server_dir(parent, "triebench-pg-")?;
            let started = crate::postgres::PgServer::start(dir.path())?;
            postgres_url = Some(started.url());
            if let Some(spec) = spec.net {
                let target = started.socket_dir().join(crate::postgres::PG_SOCKET);
                let h = crate::net_hop::NetHop::start(&target, crate::postgres::PG_SOCKET, spec)?;
                postgres_url = Some(crate::postgres::server::url_for_socket_dir(h.dir()));
                hop = Some(h);
            }
            server = Some((started, dir));
        }
        Ok(FreshStores {
            profile,
            parent: parent.to_path_buf(),
            postgres_url,
            #[cfg(feature = "postgres-db")]
            hop,
            #[cfg(feature = "postgres-db")]
            server,
            #[cfg(feature = "postgres-db")]
            pg_pair: start_pg_pair(&spec, parent)?,
            #[cfg(feature = "redis-db")]
            redis_pair: start_redis_pair(&spec, parent)?,
            #[cfg(any(feature = "postgres-db", feature = "redis-db"))]
            keep_server_dir: AtomicBool::new(false),
        })
    }

    /// The managed PostgreSQL server the stores share (a standby profile's primary), if any.
    #[cfg(feature = "postgres-db")]
    pub fn postgres_server(&self) -> Option<&crate::postgres::PgServer> {
        match (&self.server, &self.pg_pair) {
            (Some((server, _)), _) => Some(server),
            (None, Some((pair, _))) => Some(pair.primary()),
            (None, None) => None,
        }
    }

    /// The standby of a standby profile's shared pair, if any.
    #[cfg(feature = "postgres-db")]
    pub fn postgres_standby(&self) -> Option<&crate::postgres::PgServer> {
        self.pg_pair.as_ref().map(|(pair, _)| pair.standby())
    }

    /// The primary of `redis-replica-wait`'s shared pair, if any.
    #[cfg(feature = "redis-db")]
    pub fn redis_server(&self) -> Option<&crate::redis::RedisServer> {
        self.redis_pair
            .as_ref()
            .and_then(|(pair, _)| pair.primary())
    }

    /// The replica of `redis-replica-wait`'s shared pair, if any.
    #[cfg(feature = "redis-db")]
    pub fn redis_replica(&self) -> Option<&crate::redis::RedisServer> {
        self.redis_pair
            .as_ref()
            .and_then(|(pair, _)| pair.replica())
    }

    /// The profile these stores have.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Opens a fresh store with `tables` in a new directory, touches it first
    /// ([`first_touch`](crate::first_touch::first_touch)), runs `visitor` on it, then removes
    /// the store (its directory, and its schema or keys on a shared server).
    pub fn run<V: StoreVisitor>(&self, tables: &[&str], visitor: V) -> KvResult<V::Output> {
        let (dir, spec) = self.fresh_spec()?;
        let output = self.open(dir.path(), &spec, tables, visitor);
        let discarded = self.discard(dir.path(), &spec, tables);
        let output = output?;
        discarded?;
        Ok(output)
    }

    /// [`run`](Self::run) for a visitor that can fail. When the visit fails, its error is what
    /// comes back (a failure to remove the store afterwards, as when its server has died, does
    /// not hide it), and a directory the error names (a server's log) is kept to be read.
    pub fn try_run<V, T, E>(&self, tables: &[&str], visitor: V) -> KvResult<Result<T, E>>
    where
        V: StoreVisitor<Output = Result<T, E>>,
        E: Display,
    {
        let (dir, spec) = self.fresh_spec()?;
        let output = self.open(dir.path(), &spec, tables, visitor);
        let discarded = self.discard(dir.path(), &spec, tables);
        let failure = match &output {
            Ok(Ok(_)) => None,
            Ok(Err(e)) => Some(e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        let Some(message) = failure else {
            discarded?;
            return output;
        };
        if names(&message, dir.path()) {
            let _ = dir.keep();
        }
        #[cfg(any(feature = "postgres-db", feature = "redis-db"))]
        {
            // A store of a shared server reaches it by address and cannot tell that it died.
            for server in self.shared_servers() {
                if !server.running {
                    self.keep_server_dir.store(true, Ordering::Relaxed);
                    return Err(KvError::backend(
                        server.backend,
                        format!(
                            "{message}; the shared {} (pid {}) has exited (see its log {})",
                            server.role,
                            server.pid,
                            server.log.display()
                        ),
                    ));
                }
            }
            if self.shared_dir().is_some_and(|d| names(&message, d)) {
                self.keep_server_dir.store(true, Ordering::Relaxed);
            }
        }
        output
    }

    /// Opens the store of `spec` in `dir` (on the shared pair, if there is one), touches it
    /// first and visits it.
    fn open<V: StoreVisitor>(
        &self,
        dir: &Path,
        spec: &BackendSpec,
        tables: &[&str],
        visitor: V,
    ) -> KvResult<V::Output> {
        let visitor = Touched(visitor);
        #[cfg(feature = "postgres-db")]
        if let Some((pair, _)) = &self.pg_pair {
            return AnyStore::from(pair.open(dir, tables)?).visit(visitor);
        }
        #[cfg(feature = "redis-db")]
        if let Some((pair, _)) = &self.redis_pair {
            return AnyStore::from(pair.open(dir, tables)?).visit(visitor);
        }
        let _ = dir;
        spec.open(tables, visitor)?
    }

    /// Removes what the store of `spec` in `dir` kept outside its directory (its schema or
    /// keys on a shared server).
    fn discard(&self, dir: &Path, spec: &BackendSpec, tables: &[&str]) -> KvResult<()> {
        #[cfg(feature = "postgres-db")]
        if let Some((pair, _)) = &self.pg_pair {
            return pair.discard(dir);
        }
        #[cfg(feature = "redis-db")]
        if let Some((pair, _)) = &self.redis_pair {
            return pair.discard(dir, tables);
        }
        let _ = (dir, tables);
        spec.discard()
    }

    /// The servers the stores share: the shared PostgreSQL server, or a pair's two.
    #[cfg(any(feature = "postgres-db", feature = "redis-db"))]
    fn shared_servers(&self) -> Vec<SharedServer<'_>> {
        let mut out = Vec::new();
        #[cfg(feature = "postgres-db")]
        {
            fn pg<'a>(role: &'static str, s: &'a crate::postgres::PgServer) -> SharedServer<'a> {
                SharedServer {
                    backend: "postgres",
                    role,
                    pid: s.pid(),
                    running: s.is_running(),
                    log: s.log_path(),
                }
            }
            if let Some((server, _)) = &self.server {
                out.push(pg("server", server));
            }
            if let Some((pair, _)) = &self.pg_pair {
                out.push(pg("primary", pair.primary()));
                out.push(pg("standby", pair.standby()));
            }
        }
        #[cfg(feature = "redis-db")]
        if let Some((pair, _)) = &self.redis_pair {
            let servers = [("primary", pair.primary()), ("replica", pair.replica())];
            for (role, server) in servers {
                if let Some(s) = server {
                    out.push(SharedServer {
                        backend: "redis",
                        role,
                        pid: s.pid(),
                        running: s.is_running(),
                        log: s.log_path(),
                    });
                }
            }
        }
        out
    }

    /// The directory of the shared server or pair, if any.
    #[cfg(any(feature = "postgres-db", feature = "redis-db"))]
    fn shared_dir(&self) -> Option<&Path> {
        #[cfg(feature = "postgres-db")]
        if let Some((_, dir)) = self.server.as_ref() {
            return Some(dir.path());
        }
        #[cfg(feature = "postgres-db")]
        if let Some((_, dir)) = self.pg_pair.as_ref() {
            return Some(dir.path());
        }
        #[cfg(feature = "redis-db")]
        if let Some((_, dir)) = self.redis_pair.as_ref() {
            return Some(dir.path());
        }
        None
    }

    /// A new directory under the parent, and the spec of a store in it.
    fn fresh_spec(&self) -> KvResult<(tempfile::TempDir, BackendSpec)> {
        let dir = tempfile::Builder::new()
            .prefix("triebench-")
            .tempdir_in(&self.parent)
            .map_err(|e| KvError::io("create directory", &self.parent, e))?;
        let mut spec = BackendSpec::new(self.profile, Some(dir.path().to_path_buf()))?;
        spec.postgres_url.clone_from(&self.postgres_url);
        #[cfg(feature = "postgres-db")]
        if self.hop.is_some() {
            // The shared server's proxy already carries the delay.
            spec.net = None;
        }
        Ok((dir, spec))
    }
}

#[cfg(any(feature = "postgres-db", feature = "redis-db"))]
impl Drop for FreshStores {
    fn drop(&mut self) {
        if !self.keep_server_dir.load(Ordering::Relaxed) {
            return;
        }
        // The servers stop first; their directory (the logs) stays.
        #[cfg(feature = "postgres-db")]
        {
            drop(self.hop.take());
            if let Some((server, dir)) = self.server.take() {
                drop(server);
                let _ = dir.keep();
            }
            if let Some((pair, dir)) = self.pg_pair.take() {
                drop(pair);
                let _ = dir.keep();
            }
        }
        #[cfg(feature = "redis-db")]
        if let Some((pair, dir)) = self.redis_pair.take() {
            drop(pair);
            let _ = dir.keep();
        }
    }
}

/// A new directory under `parent` for a shared server or pair.
#[cfg(any(feature = "postgres-db", feature = "redis-db"))]
fn server_dir(parent: &Path, prefix: &str) -> KvResult<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(parent)
        .map_err(|e| KvError::io("create directory", parent, e))
}

/// The shared pair of a PostgreSQL standby profile, started in a new directory under `parent`:
/// `None` for other profiles.
#[cfg(feature = "postgres-db")]
fn start_pg_pair(
    spec: &BackendSpec,
    parent: &Path,
) -> KvResult<Option<(crate::postgres::SharedPair, tempfile::TempDir)>> {
    use crate::postgres::StandbyMode;
    let mode = match spec.profile {
        Profile::PostgresSyncStandby => StandbyMode::Sync,
        Profile::PostgresRemoteApply => StandbyMode::RemoteApply,
        Profile::PostgresAsyncStandby => StandbyMode::Async,
        _ => return Ok(None),
    };
    if spec.postgres_url.is_some() {
        return Err(KvError::backend(
            "postgres",
            "a standby profile starts its own pair of servers; it cannot use POSTGRES_URL",
        ));
    }
    let link = crate::net_hop::standby_link_from_env(spec.net)?;
    let dir = server_dir(parent, "triebench-pg-pair-")?;
    let pair = crate::postgres::SharedPair::start(dir.path(), mode, spec.net, link)?;
    Ok(Some((pair, dir)))
}

/// The shared pair of `redis-replica-wait`, started in a new directory under `parent`: `None`
/// for other profiles.
#[cfg(feature = "redis-db")]
fn start_redis_pair(
    spec: &BackendSpec,
    parent: &Path,
) -> KvResult<Option<(crate::redis::SharedPair, tempfile::TempDir)>> {
    if spec.profile != Profile::RedisReplicaWait {
        return Ok(None);
    }
    if spec.redis_url.is_some() {
        return Err(KvError::backend(
            "redis",
            "redis-replica-wait starts its own primary and replica; it cannot use REDIS_URL",
        ));
    }
    let link = crate::net_hop::standby_link_from_env(spec.net)?;
    let dir = server_dir(parent, "triebench-redis-pair-")?;
    let pair = crate::redis::SharedPair::start(dir.path(), spec.net, link)?;
    Ok(Some((pair, dir)))
}

/// Whether `message` names `dir` (as given, or as its canonical path, which server logs use).
fn names(message: &str, dir: &Path) -> bool {
    let canonical = dir.canonicalize().ok();
    std::iter::once(dir)
        .chain(canonical.as_deref())
        .any(|d| message.contains(&d.display().to_string()))
}

#[cfg(all(test, feature = "lmdb"))]
mod tests {
    use super::*;
    use crate::store::ReadTx;

    /// The length of the `lmdb` profile's data file under the one store directory in `parent`,
    /// and the number of entries in each table of `store`.
    fn data_len(parent: &Path) -> u64 {
        let dirs: Vec<PathBuf> = std::fs::read_dir(parent)
            .expect("parent")
            .map(|e| e.expect("entry").path())
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        std::fs::metadata(dirs[0].join("lmdb").join("data.mdb"))
            .expect("data file")
            .len()
    }

    fn counts<S: Store>(store: &S) -> Vec<u64> {
        let r = store.reader().expect("reader");
        store
            .table_names()
            .iter()
            .map(|n| r.count(store.table(n).expect("table")).expect("count"))
            .collect()
    }

    /// What a visitor finds: the data file's length and each table's entries.
    struct Look<'a>(&'a Path);

    impl StoreVisitor for Look<'_> {
        type Output = (u64, Vec<u64>);
        fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
            (data_len(self.0), counts(&store))
        }
    }

    /// A fresh store reaches its visitor with its tables' pages written once (the data file
    /// longer than a store just opened) and every table still empty.
    #[test]
    fn a_fresh_store_is_touched_before_its_visitor_runs_and_stays_empty() {
        let tables = ["main", "change_log", "duplicate_log"];
        let opened = tempfile::tempdir().expect("temp dir");
        let spec = BackendSpec::new(Profile::Lmdb, Some(opened.path().join("s"))).expect("spec");
        let (untouched, _) = spec.open(&tables, Look(opened.path())).expect("open");
        let parent = tempfile::tempdir().expect("temp dir");
        let stores = FreshStores::new(Profile::Lmdb, parent.path()).expect("stores");
        let (touched, entries) = stores
            .run(&tables, Look(parent.path()))
            .expect("fresh store");
        assert!(
            touched > untouched,
            "data file {touched} bytes after the first touch, {untouched} when just opened"
        );
        assert_eq!(entries, vec![0, 0, 0]);
    }
}

#[cfg(all(test, feature = "lmdb", target_os = "linux"))]
mod reservation_tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;

    /// Bytes with blocks of the `lmdb-async` data file under the one store directory in `parent`.
    struct Allocated<'a>(&'a Path);

    impl StoreVisitor for Allocated<'_> {
        type Output = u64;
        fn visit<S: Store + 'static>(self, _store: S) -> u64 {
            let dirs: Vec<PathBuf> = std::fs::read_dir(self.0)
                .expect("parent")
                .map(|e| e.expect("entry").path())
                .collect();
            assert_eq!(dirs.len(), 1, "{dirs:?}");
            std::fs::metadata(dirs[0].join("triebench.lmdb"))
                .expect("data file")
                .blocks()
                * 512
        }
    }

    /// An `lmdb-async` fresh store reaches its visitor with its first writer's blocks reserved.
    #[test]
    fn a_fresh_lmdb_async_store_has_its_blocks_reserved_before_its_visitor_runs() {
        let parent = tempfile::tempdir().expect("temp dir");
        let stores = FreshStores::new(Profile::LmdbAsync, parent.path()).expect("stores");
        let allocated = stores
            .run(&["main", "change_log"], Allocated(parent.path()))
            .expect("fresh store");
        assert!(
            allocated >= crate::lmdb::space::HEADROOM,
            "{allocated} bytes allocated"
        );
    }
}
