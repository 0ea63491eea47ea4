//! Fresh stores of one profile, one after another: for work that runs each measurement on a new,
//! empty store (the benches, the I/O profile, the phase timings).
//!
//! Each store gets a new directory under one parent (on the filesystem under test), removed with
//! what the store kept elsewhere once its run is over. A managed PostgreSQL server is shared by
//! all of them: a store with its own server pays an `initdb` (2.4 s here) before each run of a
//! scenario that takes milliseconds, so instead one server's cluster lives in a directory under
//! the parent and each fresh store is a schema of it, as on a database server a team runs
//! (`POSTGRES_URL`, which is used instead when set). Other profiles open a store of their own per
//! run (a managed `redis-server` starts in milliseconds).

use std::path::{Path, PathBuf};

use crate::error::{KvError, KvResult};
use crate::profile::Profile;
use crate::spec::{BackendSpec, StoreVisitor};

/// A source of fresh, empty stores of one profile under one directory.
pub struct FreshStores {
    profile: Profile,
    parent: PathBuf,
    postgres_url: Option<String>,
    /// The shared server, then its directory: dropped in that order.
    #[cfg(feature = "postgres-db")]
    _server: Option<(crate::postgres::PgServer, tempfile::TempDir)>,
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
        if matches!(profile, Profile::Postgres | Profile::PostgresAsync) && postgres_url.is_none() {
            let dir = tempfile::Builder::new()
                .prefix("triebench-pg-")
                .tempdir_in(parent)
                .map_err(|e| KvError::io("create directory", parent, e))?;
            let started = crate::postgres::PgServer::start(dir.path())?;
            postgres_url = Some(started.url());
            server = Some((started, dir));
        }
        Ok(FreshStores {
            profile,
            parent: parent.to_path_buf(),
            postgres_url,
            #[cfg(feature = "postgres-db")]
            _server: server,
        })
    }

    /// The profile these stores have.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Opens a fresh store with `tables` in a new directory, runs `visitor` on it, then removes
    /// the store (its directory, and its schema on a shared server).
    pub fn run<V: StoreVisitor>(&self, tables: &[&str], visitor: V) -> KvResult<V::Output> {
        let dir = tempfile::Builder::new()
            .prefix("triebench-")
            .tempdir_in(&self.parent)
            .map_err(|e| KvError::io("create directory", &self.parent, e))?;
        let mut spec = BackendSpec::new(self.profile, Some(dir.path().to_path_buf()))?;
        spec.postgres_url.clone_from(&self.postgres_url);
        let output = spec.open(tables, visitor);
        let discarded = spec.discard();
        let output = output?;
        discarded?;
        Ok(output)
    }
}
