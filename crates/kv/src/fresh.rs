//! Fresh stores of one profile, one after another: for work that runs each measurement on a new,
//! empty store (the benches, the I/O profile, the phase timings).
//!
//! Each store gets a new directory under one parent (on the filesystem under test), removed with
//! what the store kept elsewhere once its run is over. A managed PostgreSQL server is shared by
//! all of them: a store with its own server pays an `initdb` (2.4 s here) before each run of a
//! scenario that takes milliseconds, so instead one server's cluster lives in a directory under
//! the parent and each fresh store is a schema of it, as on a database server a team runs
//! (`POSTGRES_URL`, which is used instead when set). Other profiles open a store of their own per
//! run (a managed `redis-server` starts in milliseconds). A failed run keeps what its error names
//! (a server's log) to be read: [`FreshStores::try_run`].

use std::fmt::Display;
use std::path::{Path, PathBuf};
#[cfg(feature = "postgres-db")]
use std::sync::atomic::{AtomicBool, Ordering};

use crate::any_store::StoreVisitor;
use crate::error::{KvError, KvResult};
use crate::profile::Profile;
use crate::spec::BackendSpec;

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
    /// Set when a failed visit's error named the shared server's directory (its log): the
    /// directory is then kept when the stores are dropped.
    #[cfg(feature = "postgres-db")]
    keep_server_dir: AtomicBool,
}

impl FreshStores {
    /// Fresh stores of `profile` under `parent`; starts the shared server a PostgreSQL profile
    /// needs (unless `POSTGRES_URL` names one).
    pub fn new(profile: Profile, parent: &Path) -> KvResult<FreshStores> {
        let spec = BackendSpec::new(profile, Some(parent.to_path_buf()))?;
        #[allow(unused_mut)] // only PostgreSQL builds set it
        let mut postgres_url = spec.postgres_url;
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
            let dir = tempfile::Builder::new()
                .prefix("triebench-pg-")
                .tempdir_in(parent)
                .map_err(|e| KvError::io("create directory", parent, e))?;
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
            keep_server_dir: AtomicBool::new(false),
        })
    }

    /// The profile these stores have.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Opens a fresh store with `tables` in a new directory, runs `visitor` on it, then removes
    /// the store (its directory, and its schema on a shared server).
    pub fn run<V: StoreVisitor>(&self, tables: &[&str], visitor: V) -> KvResult<V::Output> {
        let (_dir, spec) = self.fresh_spec()?;
        let output = spec.open(tables, visitor);
        let discarded = spec.discard();
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
        let output = spec.open(tables, visitor);
        let discarded = spec.discard();
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
        #[cfg(feature = "postgres-db")]
        if let Some((server, server_dir)) = &self.server {
            // A store of the shared server reaches it by URL and cannot tell that it died.
            if !server.is_running() {
                self.keep_server_dir.store(true, Ordering::Relaxed);
                return Err(KvError::backend(
                    "postgres",
                    format!(
                        "{message}; the shared server (pid {}) has exited (see its log {})",
                        server.pid(),
                        server.log_path().display()
                    ),
                ));
            }
            if names(&message, server_dir.path()) {
                self.keep_server_dir.store(true, Ordering::Relaxed);
            }
        }
        output
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

#[cfg(feature = "postgres-db")]
impl Drop for FreshStores {
    fn drop(&mut self) {
        if self.keep_server_dir.load(Ordering::Relaxed) {
            if let Some((server, dir)) = self.server.take() {
                drop(server);
                let _ = dir.keep();
            }
        }
    }
}

/// Whether `message` names `dir` (as given, or as its canonical path, which server logs use).
fn names(message: &str, dir: &Path) -> bool {
    let canonical = dir.canonicalize().ok();
    std::iter::once(dir)
        .chain(canonical.as_deref())
        .any(|d| message.contains(&d.display().to_string()))
}
