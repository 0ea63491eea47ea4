//! One backend specification shared by the CLI, the benches and the tests: a profile name plus
//! a directory, opened into a concrete store and handed to generic code.

use std::path::PathBuf;

use crate::any_store::{AnyStore, StoreVisitor};
use crate::btree::BTreeStore;
use crate::compaction::Compaction;
use crate::error::{KvError, KvResult};
use crate::profile::{Profile, DEFAULT_LMDB_MAP_SIZE};

/// A backend profile plus where it keeps its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendSpec {
    /// Which backend configuration.
    pub profile: Profile,
    /// Directory for the store's files (ignored by `btree`; `--dir` of a managed redis-server).
    pub dir: Option<PathBuf>,
    /// LMDB map size in bytes.
    pub lmdb_map_size: usize,
    /// An existing Redis server to use instead of starting one (`REDIS_URL`).
    pub redis_url: Option<String>,
    /// An existing PostgreSQL server to use instead of starting one (`POSTGRES_URL`).
    pub postgres_url: Option<String>,
    /// A delay proxy between the store and its managed server (`--net-rtt`, from
    /// [`TRIEBENCH_NET_RTT`](crate::net_hop::NET_RTT_ENV)); ignored by in-process backends.
    pub net: Option<triebench_netdelay::DelaySpec>,
}

impl BackendSpec {
    /// A spec for `profile` in `dir`, with defaults taken from the environment:
    /// `TRIEBENCH_LMDB_MAP_SIZE` (bytes), `REDIS_URL` and `POSTGRES_URL`.
    pub fn new(profile: Profile, dir: Option<PathBuf>) -> KvResult<Self> {
        let lmdb_map_size = match std::env::var("TRIEBENCH_LMDB_MAP_SIZE") {
            Ok(text) => text.trim().parse().map_err(|_| {
                KvError::backend(
                    "lmdb",
                    format!("TRIEBENCH_LMDB_MAP_SIZE must be a byte count, got `{text}`"),
                )
            })?,
            Err(_) => DEFAULT_LMDB_MAP_SIZE,
        };
        let redis_url = std::env::var("REDIS_URL").ok().filter(|u| !u.is_empty());
        let postgres_url = std::env::var("POSTGRES_URL").ok().filter(|u| !u.is_empty());
        let net = crate::net_hop::net_from_env()?;
        Ok(BackendSpec {
            net,
            profile,
            dir,
            lmdb_map_size,
            redis_url,
            postgres_url,
        })
    }

    /// Parses a profile name (an unknown name lists the valid ones) into a spec for `dir`.
    pub fn parse(name: &str, dir: Option<PathBuf>) -> KvResult<Self> {
        Self::new(name.parse()?, dir)
    }

    /// The directory, or an error for profiles that need one.
    #[cfg(any(
        feature = "lmdb",
        feature = "sqlite-db",
        feature = "redis-db",
        feature = "postgres-db"
    ))]
    fn require_dir(&self) -> KvResult<&std::path::Path> {
        self.dir.as_deref().ok_or(KvError::DirectoryRequired {
            profile: self.profile.name(),
        })
    }

    /// Removes what a store of this spec keeps outside its directory: its schema when the
    /// profile is PostgreSQL on a server given by URL. The directory itself is the caller's;
    /// every other profile keeps its data in it (or, for Redis on `REDIS_URL`, leaves it).
    pub fn discard(&self) -> KvResult<()> {
        match (self.profile, &self.postgres_url, &self.dir) {
            #[cfg(feature = "postgres-db")]
            (
                Profile::Postgres | Profile::PostgresAsync | Profile::PostgresUncached,
                Some(url),
                Some(dir),
            ) => crate::postgres::drop_store(dir, url),
            _ => Ok(()),
        }
    }

    /// Compacts the closed store of this spec in place, where its backend can
    /// (`lmdb::compact`, with the `lmdb` feature: `lmdb`, `lmdb-async`): its data file is
    /// replaced by a copy with its entries packed into full pages. Other profiles are
    /// [`KvError::CompactionUnsupported`].
    // Without LMDB built in, no profile reads `tables`.
    #[cfg_attr(not(feature = "lmdb"), allow(unused_variables))]
    pub fn compact(&self, tables: &[&str]) -> KvResult<Compaction> {
        match self.profile {
            #[cfg(feature = "lmdb")]
            profile if profile.compacts() => {
                let options = crate::lmdb::LmdbOptions {
                    map_size: self.lmdb_map_size,
                    transact_flags: profile == Profile::LmdbAsync,
                };
                crate::lmdb::compact::compact(self.require_dir()?, tables, options)
            }
            _ => Err(KvError::CompactionUnsupported {
                profile: self.profile.name(),
            }),
        }
    }

    /// Opens the store with `tables` and runs `visitor` on it.
    pub fn open<V: StoreVisitor>(&self, tables: &[&str], visitor: V) -> KvResult<V::Output> {
        Ok(self.open_any(tables)?.visit(visitor))
    }

    /// Opens the store with `tables` as an [`AnyStore`], a value the caller can keep (in a
    /// struct, behind an `Arc`) whatever backend the profile chose.
    pub fn open_any(&self, tables: &[&str]) -> KvResult<AnyStore> {
        if !self.profile.is_enabled() {
            return Err(KvError::ProfileNotEnabled {
                profile: self.profile.name(),
                feature: self.profile.feature().unwrap_or("default"),
            });
        }
        match self.profile {
            Profile::Btree => Ok(AnyStore::from(BTreeStore::open(tables)?)),
            #[cfg(feature = "lmdb")]
            Profile::Lmdb | Profile::LmdbAsync => {
                let options = crate::lmdb::LmdbOptions {
                    map_size: self.lmdb_map_size,
                    transact_flags: self.profile == Profile::LmdbAsync,
                };
                let store = crate::lmdb::LmdbStore::open(self.require_dir()?, tables, options)?;
                Ok(AnyStore::from(store))
            }
            #[cfg(feature = "sqlite-db")]
            Profile::SqliteWal
            | Profile::SqliteWalFull
            | Profile::SqliteRollback
            | Profile::SqliteWalMmap
            | Profile::SqliteWalFullMmap => {
                let mode = match self.profile {
                    Profile::SqliteWal => crate::sqlite::SqliteMode::Wal,
                    Profile::SqliteWalFull => crate::sqlite::SqliteMode::WalFull,
                    Profile::SqliteWalMmap => crate::sqlite::SqliteMode::WalMmap,
                    Profile::SqliteWalFullMmap => crate::sqlite::SqliteMode::WalFullMmap,
                    _ => crate::sqlite::SqliteMode::Rollback,
                };
                let store = crate::sqlite::SqliteStore::open(self.require_dir()?, tables, mode)?;
                Ok(AnyStore::from(store))
            }
            #[cfg(feature = "redis-db")]
            Profile::Redis | Profile::RedisAof | Profile::RedisUncached => {
                let options = crate::redis::RedisOptions {
                    url: self.redis_url.clone(),
                    append_only: self.profile == Profile::RedisAof,
                    net: self.net,
                };
                let dir = self.require_dir()?;
                let store = if self.profile == Profile::RedisUncached {
                    crate::redis::RedisStore::open_uncached(dir, tables, options)?
                } else {
                    crate::redis::RedisStore::open(dir, tables, options)?
                };
                Ok(AnyStore::from(store))
            }
            #[cfg(feature = "postgres-db")]
            Profile::Postgres | Profile::PostgresAsync | Profile::PostgresUncached => {
                let options = crate::postgres::PgOptions {
                    url: self.postgres_url.clone(),
                    asynchronous: self.profile == Profile::PostgresAsync,
                    uncached: self.profile == Profile::PostgresUncached,
                    net: self.net,
                };
                let store = crate::postgres::PgStore::open(self.require_dir()?, tables, options)?;
                Ok(AnyStore::from(store))
            }
            #[cfg(feature = "redis-db")]
            Profile::RedisReplicaWait => {
                let options = crate::redis::RedisOptions {
                    url: self.redis_url.clone(),
                    append_only: false,
                    net: self.net,
                };
                let link = crate::net_hop::standby_link_from_env(self.net)?;
                let store = crate::redis::RedisStore::open_replicated(
                    self.require_dir()?,
                    tables,
                    options,
                    link,
                )?;
                Ok(AnyStore::from(store))
            }
            #[cfg(feature = "postgres-db")]
            Profile::PostgresSyncStandby
            | Profile::PostgresRemoteApply
            | Profile::PostgresAsyncStandby => {
                let mode = match self.profile {
                    Profile::PostgresSyncStandby => crate::postgres::StandbyMode::Sync,
                    Profile::PostgresRemoteApply => crate::postgres::StandbyMode::RemoteApply,
                    _ => crate::postgres::StandbyMode::Async,
                };
                let options = crate::postgres::PgOptions {
                    url: self.postgres_url.clone(),
                    asynchronous: false,
                    uncached: false,
                    net: self.net,
                };
                let link = crate::net_hop::standby_link_from_env(self.net)?;
                let store = crate::postgres::PgStore::open_replicated(
                    self.require_dir()?,
                    tables,
                    options,
                    mode,
                    link,
                )?;
                Ok(AnyStore::from(store))
            }
            #[allow(unreachable_patterns)]
            other => Err(KvError::ProfileNotEnabled {
                profile: other.name(),
                feature: other.feature().unwrap_or("default"),
            }),
        }
    }
}
