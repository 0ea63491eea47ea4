//! Backend profiles: one name per backend configuration, accepted by the CLI and the benches.
//!
//! A profile's name, description, cargo feature and whether it fsyncs each commit are written
//! once, in [`triebench_record::vocabulary::PROFILES`] (the report lists profiles from that
//! table without this crate); [`Profile`] reads its entry there by its position in
//! [`Profile::ALL`], which is the variants' order.

use std::fmt;
use std::str::FromStr;

use triebench_record::vocabulary::{ProfileFacts, PROFILES};

use crate::error::KvError;

/// Default LMDB map size: 1 TiB of address space (sparse; only used pages cost disk).
pub const DEFAULT_LMDB_MAP_SIZE: usize = 1 << 40;

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

/// What a profile with a standby keeps when its primary is lost and the standby promoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failover {
    /// Every acknowledged commit: the standby had it before the commit returned.
    Acknowledged,
    /// All but the commits the standby had not yet received (its lag, measured by
    /// `crash-test --failover`).
    Lag,
}

impl Failover {
    /// A short name for tables: `keeps-acked` or `loses-lag`.
    pub fn name(self) -> &'static str {
        match self {
            Failover::Acknowledged => "keeps-acked",
            Failover::Lag => "loses-lag",
        }
    }
}

/// How each kind of managed server runs and is reached, one line each, for `triebench profiles`
/// (the profiles' one-line descriptions stay about what a commit costs): the user it runs as and
/// the only way in, so a user running as root on a shared machine knows what is exposed.
pub const MANAGED_SERVERS: [&str; 4] = [
    "redis, redis-aof, redis-uncached: a managed redis-server runs as `triebench-srv` (a dedicated system account, made on first use) when triebench \
     runs as root (else as you), with no TCP port: a unix socket in a private 0700 \
     /tmp/triebench-redis-* directory and a random password (never printed); REDIS_URL uses \
     your server instead",
    "postgres, postgres-async, postgres-uncached: a managed PostgreSQL runs as `triebench-srv` (a dedicated system account, made on first use) when triebench runs as \
     root (else as you), with no TCP port: a unix socket in a private 0700 /tmp/triebench-pg-* \
     directory, peer authentication for your OS user only, stores as the ordinary role \
     triebench_store; POSTGRES_URL uses your server instead",
    "postgres-sync-standby, postgres-remote-apply, postgres-async-standby: two managed \
     PostgreSQL servers as above (primary in DIR/pgdata, a pg_basebackup standby in \
     DIR/standby), PostgreSQL's streaming replication over a unix socket (through the delay \
     proxy with --net-rtt, which then delays both the store-primary and primary-standby links); \
     the standby logs in as the REPLICATION role triebench_repl with a random password (never \
     printed); failover: crash-test --failover",
    "redis-replica-wait: the managed redis-server as above plus a replica (DIR/replica), Redis's \
     own replication; Redis replicates only over TCP, so the replica dials a delay proxy on a \
     fresh 127.0.0.1 port (delayed by --net-rtt or TRIEBENCH_STANDBY_RTT) that admits only the \
     replica's own process (any other connection is closed unread) and forwards to the \
     primary's private socket; the replica logs in as the ACL user triebench_repl (replication only) \
     with a random password (never printed); WAIT 1 after each commit, 0 replicas is a commit \
     error; failover: crash-test --failover",
];

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
    /// `postgres` without the store's cache of the trie's nodes: every node read a round trip.
    PostgresUncached,
    /// `postgres` with a synchronous streaming standby (`synchronous_commit=on`).
    PostgresSyncStandby,
    /// `postgres` with a synchronous standby and `synchronous_commit=remote_apply`.
    PostgresRemoteApply,
    /// `postgres` with an asynchronous streaming standby.
    PostgresAsyncStandby,
    /// `redis` with a replica and `WAIT 1` after each commit.
    RedisReplicaWait,
}

impl Profile {
    /// Every profile, in the order tables list them: the variants' order, which is that of
    /// [`PROFILES`] (one entry per profile, so the array's length is the table's).
    pub const ALL: [Profile; PROFILES.len()] = [
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
        Profile::PostgresUncached,
        Profile::PostgresSyncStandby,
        Profile::PostgresRemoteApply,
        Profile::PostgresAsyncStandby,
        Profile::RedisReplicaWait,
    ];

    /// The profile's entry in [`PROFILES`], where its name, description, feature and fsync fact
    /// are written: the entry at the variant's position, which is its position in
    /// [`Profile::ALL`].
    fn facts(self) -> &'static ProfileFacts {
        &PROFILES[self as usize]
    }

    /// The profile's name as given on the command line.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The cargo feature that compiles this profile's backend in (`None` for always-on btree).
    pub fn feature(self) -> Option<&'static str> {
        self.facts().feature
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

    /// What a commit survives under this profile: nothing where the data lives only in memory
    /// (every variant is named, so a new profile must say which kind it is); where it persists,
    /// power loss if each commit is fsynced ([`Profile::fsyncs_each_commit`]), else a crash of
    /// the process.
    pub fn durability(self) -> Durability {
        match self {
            Profile::Btree
            | Profile::Redis
            | Profile::RedisUncached
            | Profile::RedisReplicaWait => Durability::Volatile,
            Profile::Lmdb
            | Profile::LmdbAsync
            | Profile::SqliteWal
            | Profile::SqliteWalFull
            | Profile::SqliteRollback
            | Profile::SqliteWalMmap
            | Profile::SqliteWalFullMmap
            | Profile::RedisAof
            | Profile::Postgres
            | Profile::PostgresAsync
            | Profile::PostgresUncached
            | Profile::PostgresSyncStandby
            | Profile::PostgresRemoteApply
            | Profile::PostgresAsyncStandby => {
                if self.fsyncs_each_commit() {
                    Durability::PowerLoss
                } else {
                    Durability::ProcessCrash
                }
            }
        }
    }

    /// What a commit survives when the primary is lost and its standby promoted
    /// (`crash-test --failover` checks it); `None` for profiles without a standby.
    pub fn failover(self) -> Option<Failover> {
        match self {
            Profile::PostgresSyncStandby
            | Profile::PostgresRemoteApply
            | Profile::RedisReplicaWait => Some(Failover::Acknowledged),
            Profile::PostgresAsyncStandby => Some(Failover::Lag),
            _ => None,
        }
    }

    /// Whether every commit is fsynced (the column reports print as "durable").
    pub fn fsyncs_each_commit(self) -> bool {
        self.facts().fsyncs_each_commit
    }

    /// One line on what the profile does per commit, for tables and `--help`.
    pub fn describe(self) -> &'static str {
        self.facts().describe
    }

    /// Whether the profile keeps its data in files under a directory.
    pub fn needs_dir(self) -> bool {
        !matches!(self, Profile::Btree)
    }

    /// Whether [`BackendSpec::compact`](crate::BackendSpec::compact) can compact the profile's
    /// store: LMDB's, whose data file keeps every page a commit copied.
    pub fn compacts(self) -> bool {
        matches!(self, Profile::Lmdb | Profile::LmdbAsync)
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
                "postgres",
                "postgres-uncached",
                "postgres-sync-standby",
                "postgres-remote-apply",
                "postgres-async-standby"
            ]
        );
    }
}
