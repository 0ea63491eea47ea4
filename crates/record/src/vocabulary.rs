//! The names both sides of the files use, defined here once: the backend profiles (in the order
//! tables list them, with what each survives and the feature that builds it), Transact's
//! scenario names, the phase names, the benchmark ids the measuring commands and the benches
//! share, and the workload sizes the report divides by.
//!
//! The storage crate (`triebench-kv`) and the workloads (`triebench-workloads`) take their
//! profile names, descriptions, fsync facts and feature names, their phase and scenario names
//! and these sizes from here, so the report, which needs neither of them, lays out its tables
//! from the very facts the runs were made under. What those crates keep is the order of their
//! enums; `triebench-measure`'s tests check that it is the order of these tables.

/// A backend profile as tables show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileFacts {
    /// The name given on the command line and in benchmark ids.
    pub name: &'static str,
    /// Whether a commit is fsynced (survives power loss): the tables' `[fsync]` / "durable".
    pub fsyncs_each_commit: bool,
    /// The cargo feature that builds it (`None`: always built).
    pub feature: Option<&'static str>,
    /// One line on what it does per commit.
    pub describe: &'static str,
}

/// Every profile, in the order tables list them: the order of `triebench_kv::Profile`'s variants
/// and of `Profile::ALL`, whose `name`, `describe`, `feature` and `fsyncs_each_commit` read
/// their entry here.
pub const PROFILES: [ProfileFacts; 18] = [
    ProfileFacts {
        name: "btree",
        fsyncs_each_commit: false,
        feature: None,
        describe: "in-memory BTreeMap; nothing persists",
    },
    ProfileFacts {
        name: "lmdb",
        fsyncs_each_commit: true,
        feature: Some("lmdb"),
        describe: "LMDB, default flags; fsync per commit",
    },
    ProfileFacts {
        name: "lmdb-async",
        fsyncs_each_commit: false,
        feature: Some("lmdb"),
        describe: "LMDB with Transact's flags (WRITEMAP|MAPASYNC|NORDAHEAD|NOSUBDIR); no fsync",
    },
    ProfileFacts {
        name: "sqlite-wal",
        fsyncs_each_commit: false,
        feature: Some("sqlite-db"),
        describe: "SQLite WAL, synchronous=NORMAL; fsync at checkpoints only",
    },
    ProfileFacts {
        name: "sqlite-wal-full",
        fsyncs_each_commit: true,
        feature: Some("sqlite-db"),
        describe: "SQLite WAL, synchronous=FULL; WAL fsynced per commit",
    },
    ProfileFacts {
        name: "sqlite-rollback",
        fsyncs_each_commit: true,
        feature: Some("sqlite-db"),
        describe: "SQLite rollback journal (DELETE), synchronous=FULL; several fsyncs per commit",
    },
    ProfileFacts {
        name: "sqlite-wal-mmap",
        fsyncs_each_commit: false,
        feature: Some("sqlite-db"),
        describe:
            "SQLite WAL, synchronous=NORMAL, reads through a 1 GiB mmap; fsync at checkpoints only",
    },
    ProfileFacts {
        name: "sqlite-wal-full-mmap",
        fsyncs_each_commit: true,
        feature: Some("sqlite-db"),
        describe:
            "SQLite WAL, synchronous=FULL, reads through a 1 GiB mmap; WAL fsynced per commit",
    },
    ProfileFacts {
        name: "redis",
        fsyncs_each_commit: false,
        feature: Some("redis-db"),
        describe: "redis-server, no persistence; reads of what it wrote or read cached",
    },
    ProfileFacts {
        name: "redis-aof",
        fsyncs_each_commit: true,
        feature: Some("redis-db"),
        describe: "redis-server, appendonly + appendfsync always; fsync per commit; reads cached",
    },
    ProfileFacts {
        name: "redis-uncached",
        fsyncs_each_commit: false,
        feature: Some("redis-db"),
        describe: "redis-server, no persistence; every read a round trip",
    },
    ProfileFacts {
        name: "postgres",
        fsyncs_each_commit: true,
        feature: Some("postgres-db"),
        describe: "PostgreSQL, synchronous_commit=on; WAL flushed per commit",
    },
    ProfileFacts {
        name: "postgres-async",
        fsyncs_each_commit: false,
        feature: Some("postgres-db"),
        describe:
            "PostgreSQL, synchronous_commit=off; survives a server crash but its last moments",
    },
    ProfileFacts {
        name: "postgres-uncached",
        fsyncs_each_commit: true,
        feature: Some("postgres-db"),
        describe: "postgres without the trie's node cache: every node read is a round trip",
    },
    ProfileFacts {
        name: "postgres-sync-standby",
        fsyncs_each_commit: true,
        feature: Some("postgres-db"),
        describe: "postgres plus a synchronous streaming standby: a commit waits for its flush",
    },
    ProfileFacts {
        name: "postgres-remote-apply",
        fsyncs_each_commit: true,
        feature: Some("postgres-db"),
        describe: "postgres-sync-standby, synchronous_commit=remote_apply: waits for its replay",
    },
    ProfileFacts {
        name: "postgres-async-standby",
        fsyncs_each_commit: true,
        feature: Some("postgres-db"),
        describe: "postgres plus an asynchronous streaming standby: a failover loses its lag",
    },
    ProfileFacts {
        name: "redis-replica-wait",
        fsyncs_each_commit: false,
        feature: Some("redis-db"),
        describe: "redis plus a replica; WAIT 1 after each commit (unacknowledged: an error)",
    },
];

/// The facts of the profile named `name`, `None` for a name that is not a profile.
pub fn profile(name: &str) -> Option<&'static ProfileFacts> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Transact's ten scenario names (its `merkle_trie_*` test names without the prefix), in the
/// order its test file defines them and tables list them: the order of
/// `triebench_workloads::Scenario`'s variants and of `triebench_workloads::SCENARIOS`, whose
/// `Scenario::name` reads its entry here.
pub const SCENARIOS: [&str; 10] = [
    "empty_changes",
    "root_advance",
    "delete",
    "update",
    "update_same_address_space",
    "update_same_address_space_with_no_children",
    "pruning_parent",
    "pruning_successors",
    "pruning_duplicate_leaves",
    "pruning_successor_duplicate_leaves",
];

/// The phase names, which are also the names of the phases' `tracing` spans, in the order a
/// commit meets them: the order of `triebench_kv::Phase::ALL`, whose `Phase::name` reads its
/// entry here (by `Phase::index`).
pub const PHASES: [&str; 7] = [
    "trie",
    "storage_read",
    "node_decode",
    "encode",
    "hash",
    "storage_write",
    "commit",
];

/// The scenario name of the whole-suite measurement (the headline figure).
pub const SUITE: &str = "suite";
/// Function id of the fsync floor (`floor/fsync_4k`).
pub const FLOOR_FSYNC: &str = "fsync_4k";
/// Function id of the SHA-512 floor (`floor/sha512_8k`).
pub const FLOOR_SHA512: &str = "sha512_8k";
/// Group of a phase span's cost.
pub const SPAN_GROUP: &str = "phases/span";
/// A span's cost with nothing listening.
pub const SPAN_IDLE: &str = "no-subscriber";
/// A span's cost with the phase collector listening.
pub const SPAN_COLLECTED: &str = "collector";
/// Group of each profile's storage floor (`floor/commit/<profile>`).
pub const FLOOR_COMMIT_GROUP: &str = "floor/commit";

/// Commits one floor block times (`triebench_workloads::floor::FLOOR_COMMITS`): the headline
/// takes one block per round, dealt into ten samples of 30 commits like `update`'s. Enough to
/// span several of SQLite's WAL checkpoints (one per ~18 such commits), which a floor of 100
/// caught a varying number of. The report gives it as the number a floor is the mean of.
pub const FLOOR_COMMITS: usize = 300;
/// How many single-key commits the `update` scenario makes before its batch
/// (`triebench_workloads::UPDATE_KEYS`); the report divides `update`'s time by it for a time
/// per commit.
pub const UPDATE_KEYS: u32 = 1000;
