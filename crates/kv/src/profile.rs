//! Backend profiles: one name per backend configuration, accepted by the CLI and the benches.

use std::fmt;
use std::str::FromStr;

use crate::error::KvError;

/// What a committed transaction survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Durability {
    /// Lost when the process (or the Redis server) stops.
    Volatile,
    /// Survives a crash of the process; a power loss or kernel crash can lose recent commits.
    ProcessCrash,
    /// Survives power loss: each commit is fsynced before `commit` returns.
    PowerLoss,
}

impl Durability {
    /// A short name for tables and JSON: `volatile`, `process-crash` or `power-loss`.
    pub fn name(self) -> &'static str {
        match self {
            Durability::Volatile => "volatile",
            Durability::ProcessCrash => "process-crash",
            Durability::PowerLoss => "power-loss",
        }
    }
}

/// A backend configuration, selected by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// In-memory `BTreeMap`; nothing persists.
    Btree,
    /// LMDB with default flags: fsync at every commit.
    Lmdb,
    /// LMDB with Transact's flags (WRITEMAP, MAPASYNC, NORDAHEAD, NOSUBDIR): no fsync.
    LmdbAsync,
    /// SQLite, `journal_mode=WAL`, `synchronous=NORMAL`: fsync only at checkpoints.
    SqliteWal,
    /// SQLite, `journal_mode=WAL`, `synchronous=FULL`: the WAL is fsynced at every commit.
    SqliteWalFull,
    /// SQLite, `journal_mode=DELETE`, `synchronous=FULL`: rollback journal, several fsyncs.
    SqliteRollback,
    /// `sqlite-wal` reading the database file through a memory map (`mmap_size` 1 GiB).
    SqliteWalMmap,
    /// `sqlite-wal-full` reading the database file through the same memory map: durable, as
    /// `sqlite-wal-full`, with `sqlite-wal-mmap`'s reads.
    SqliteWalFullMmap,
    /// redis-server without persistence.
    Redis,
    /// redis-server with `appendonly yes`, `appendfsync always`, files in the directory under test.
    RedisAof,
    /// `redis` without the store's read cache: every read of a node is a round trip.
    RedisUncached,
    /// PostgreSQL, `synchronous_commit=on`: a commit waits for its WAL flush.
    Postgres,
    /// PostgreSQL, `synchronous_commit=off`: a server crash loses the last moments of commits.
    PostgresAsync,
}

impl Profile {
    /// Every profile, in the order tables list them.
    pub const ALL: [Profile; 13] = [
        Profile::Btree,
        Profile::Lmdb,
        Profile::LmdbAsync,
        Profile::SqliteWal,
        Profile::SqliteWalFull,
        Profile::SqliteRollback,
        Profile::SqliteWalMmap,
        Profile::SqliteWalFullMmap,
        Profile::Redis,
        Profile::RedisAof,
        Profile::RedisUncached,
        Profile::Postgres,
        Profile::PostgresAsync,
    ];

    /// The profile's name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Btree => "btree",
            Profile::Lmdb => "lmdb",
            Profile::LmdbAsync => "lmdb-async",
            Profile::SqliteWal => "sqlite-wal",
            Profile::SqliteWalFull => "sqlite-wal-full",
            Profile::SqliteRollback => "sqlite-rollback",
            Profile::SqliteWalMmap => "sqlite-wal-mmap",
            Profile::SqliteWalFullMmap => "sqlite-wal-full-mmap",
            Profile::Redis => "redis",
            Profile::RedisAof => "redis-aof",
            Profile::RedisUncached => "redis-uncached",
            Profile::Postgres => "postgres",
            Profile::PostgresAsync => "postgres-async",
        }
    }

    /// The cargo feature that compiles this profile's backend in (`None` for always-on btree).
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Profile::Btree => None,
            Profile::Lmdb | Profile::LmdbAsync => Some("lmdb"),
            Profile::SqliteWal
            | Profile::SqliteWalFull
            | Profile::SqliteRollback
            | Profile::SqliteWalMmap
            | Profile::SqliteWalFullMmap => Some("sqlite-db"),
            Profile::Redis | Profile::RedisAof | Profile::RedisUncached => Some("redis-db"),
            Profile::Postgres | Profile::PostgresAsync => Some("postgres-db"),
        }
    }

    /// Whether this build includes the profile's backend.
    pub fn is_enabled(self) -> bool {
        match self.feature() {
            None => true,
            Some("lmdb") => cfg!(feature = "lmdb"),
            Some("sqlite-db") => cfg!(feature = "sqlite-db"),
            Some("redis-db") => cfg!(feature = "redis-db"),
            Some("postgres-db") => cfg!(feature = "postgres-db"),
            Some(_) => false,
        }
    }

    /// The profiles this build includes.
    pub fn enabled() -> Vec<Profile> {
        Profile::ALL
            .into_iter()
            .filter(|p| p.is_enabled())
            .collect()
    }

    /// What a commit survives under this profile.
    pub fn durability(self) -> Durability {
        match self {
            Profile::Btree | Profile::Redis | Profile::RedisUncached => Durability::Volatile,
            Profile::LmdbAsync
            | Profile::SqliteWal
            | Profile::SqliteWalMmap
            | Profile::PostgresAsync => Durability::ProcessCrash,
            Profile::Lmdb
            | Profile::Postgres
            | Profile::SqliteWalFull
            | Profile::SqliteRollback
            | Profile::SqliteWalFullMmap
            | Profile::RedisAof => Durability::PowerLoss,
        }
    }

    /// Whether every commit is fsynced (the column reports print as "durable").
    pub fn fsyncs_each_commit(self) -> bool {
        self.durability() == Durability::PowerLoss
    }

    /// One line on what the profile does per commit, for tables and `--help`.
    pub fn describe(self) -> &'static str {
        match self {
            Profile::Btree => "in-memory BTreeMap; nothing persists",
            Profile::Lmdb => "LMDB, default flags; fsync per commit",
            Profile::LmdbAsync => {
                "LMDB with Transact's flags (WRITEMAP|MAPASYNC|NORDAHEAD|NOSUBDIR); no fsync"
            }
            Profile::SqliteWal => "SQLite WAL, synchronous=NORMAL; fsync at checkpoints only",
            Profile::SqliteWalFull => "SQLite WAL, synchronous=FULL; WAL fsynced per commit",
            Profile::SqliteRollback => {
                "SQLite rollback journal (DELETE), synchronous=FULL; several fsyncs per commit"
            }
            Profile::SqliteWalMmap => {
                "SQLite WAL, synchronous=NORMAL, reads through a 1 GiB mmap; fsync at checkpoints only"
            }
            Profile::SqliteWalFullMmap => {
                "SQLite WAL, synchronous=FULL, reads through a 1 GiB mmap; WAL fsynced per commit"
            }
            Profile::Redis => "redis-server, no persistence; reads of what it wrote or read cached",
            Profile::RedisUncached => "redis-server, no persistence; every read a round trip",
            Profile::RedisAof => {
                "redis-server, appendonly + appendfsync always; fsync per commit; reads cached"
            }
            Profile::Postgres => "PostgreSQL, synchronous_commit=on; WAL flushed per commit",
            Profile::PostgresAsync => {
                "PostgreSQL, synchronous_commit=off; survives a server crash but its last moments"
            }
        }
    }

    /// Whether the profile keeps its data in files under a directory.
    pub fn needs_dir(self) -> bool {
        !matches!(self, Profile::Btree)
    }

    /// Every valid name, comma-separated, for error messages.
    pub fn valid_names() -> String {
        Profile::ALL.map(Profile::name).join(", ")
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = KvError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| KvError::UnknownProfile {
                name: name.to_string(),
                valid: Profile::valid_names(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>().unwrap(), p);
        }
        let err = "sqlite".parse::<Profile>().unwrap_err().to_string();
        assert!(err.contains("unknown backend profile `sqlite`"), "{err}");
        assert!(err.contains("sqlite-wal-full"), "{err}");
        assert!(err.contains("redis-aof"), "{err}");
    }

    #[test]
    fn durable_profiles_are_the_fsyncing_ones() {
        let durable: Vec<_> = Profile::ALL
            .into_iter()
            .filter(|p| p.fsyncs_each_commit())
            .map(Profile::name)
            .collect();
        assert_eq!(
            durable,
            [
                "lmdb",
                "sqlite-wal-full",
                "sqlite-rollback",
                "sqlite-wal-full-mmap",
                "redis-aof",
                "postgres"
            ]
        );
    }
}
