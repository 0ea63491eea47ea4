//! One managed PostgreSQL server per bench process, shared by every fresh store.
//!
//! A managed server per store would run `initdb` (about 2 s here) for each measured iteration of
//! a scenario that takes milliseconds. Instead the first PostgreSQL store of a bench starts one
//! server in a fresh directory under `TMPDIR` (so its data and WAL are on the filesystem under
//! test), and each fresh store is a schema of it, as it would be on a database server a team
//! runs (the `POSTGRES_URL` path). [`spec`] hands out such specs; [`discard`] drops a store's
//! schema after its iteration (untimed); [`ServerGuard`] stops the server when `main` ends.
//! With `POSTGRES_URL` set, that server is used and none is started.

use std::path::Path;

use triebench_kv::{BackendSpec, KvError, Profile};

#[cfg(feature = "postgres-db")]
mod managed {
    use std::sync::Mutex;

    use triebench_kv::postgres::PgServer;
    use triebench_kv::KvError;

    /// The server, then its directory: dropped in that order.
    pub struct Shared {
        server: PgServer,
        _dir: tempfile::TempDir,
    }

    pub static SERVER: Mutex<Option<Shared>> = Mutex::new(None);

    /// The shared server's connection string, starting it on first use.
    pub fn url() -> Result<String, KvError> {
        let mut slot = SERVER.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(shared) = slot.as_ref() {
            return Ok(shared.server.url());
        }
        let dir = tempfile::Builder::new()
            .prefix("triebench-pg-")
            .tempdir()
            .map_err(|e| KvError::io("create directory", std::env::temp_dir(), e))?;
        let server = PgServer::start(dir.path())?;
        let url = server.url();
        *slot = Some(Shared { server, _dir: dir });
        Ok(url)
    }
}

/// A spec for a fresh store of `profile` in `dir`; PostgreSQL profiles get the shared server.
pub fn spec(profile: Profile, dir: &Path) -> Result<BackendSpec, KvError> {
    #[allow(unused_mut)] // only PostgreSQL builds change it
    let mut spec = BackendSpec::new(profile, Some(dir.to_path_buf()))?;
    #[cfg(feature = "postgres-db")]
    if matches!(profile, Profile::Postgres | Profile::PostgresAsync) && spec.postgres_url.is_none()
    {
        spec.postgres_url = Some(managed::url()?);
    }
    Ok(spec)
}

/// Drops what a measured store left on a shared server (its schema).
pub fn discard(spec: &BackendSpec) {
    if let Err(e) = spec.discard() {
        eprintln!("triebench: could not drop a measured store's data: {e}");
    }
}

/// Stops the shared server (if one was started) when dropped: hold one in `main`.
pub struct ServerGuard;

impl Drop for ServerGuard {
    fn drop(&mut self) {
        #[cfg(feature = "postgres-db")]
        drop(
            managed::SERVER
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
    }
}
