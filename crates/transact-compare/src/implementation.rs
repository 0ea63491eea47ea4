//! Every Transact store the comparator opens, named `transact-<version>:<profile>` where
//! `<profile>` is the triebench profile it is compared with (`lmdb`, `sqlite-wal`, ...).

use std::fmt;
use std::num::NonZeroU32;
use std::path::Path;
use std::str::FromStr;

use triebench_kv::redis::RedisServer;
use triebench_smallbank::side::RemovePruned;
use triebench_smallbank::FullState;

use crate::v037::V037;
use crate::v047::V047;
use crate::{TransactError, TransactState};

/// LMDB map size for both versions (Transact's own default is 1 TiB of address space; 1 GiB
/// holds every workload here and fits small filesystems).
const LMDB_MAP_SIZE: usize = 1 << 30;

/// Environment variable naming an existing PostgreSQL server for `transact-0.4.7:postgres`.
///
/// Hook for the lead: once triebench-kv has a managed PostgreSQL server (the `postgres`
/// profile), [`postgres_url`] is the one place to start it instead.
pub const POSTGRES_URL_VAR: &str = "POSTGRES_URL";

/// The PostgreSQL server `transact-0.4.7:postgres` uses, if any (see [`POSTGRES_URL_VAR`]).
pub fn postgres_url() -> Option<String> {
    std::env::var(POSTGRES_URL_VAR)
        .ok()
        .filter(|u| !u.is_empty())
}

/// One Transact implementation of the merkle state over one store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Implementation {
    /// 0.4.7 key-value `MerkleState` over its in-memory `BTreeDatabase`.
    V047Btree,
    /// 0.4.7 key-value `MerkleState` over `LmdbDatabase` (WRITEMAP|MAPASYNC|NORDAHEAD|NOSUBDIR).
    V047Lmdb,
    /// 0.4.7 `SqlMerkleState` over SQLite, journal WAL, synchronous NORMAL.
    V047SqliteWal,
    /// 0.4.7 `SqlMerkleState` over SQLite, journal WAL, synchronous FULL.
    V047SqliteWalFull,
    /// 0.4.7 `SqlMerkleState` over SQLite, rollback journal (DELETE), synchronous FULL.
    V047SqliteRollback,
    /// 0.4.7 `SqlMerkleState` over PostgreSQL at `POSTGRES_URL`.
    V047Postgres,
    /// 0.3.7 key-value `MerkleState` over its `BTreeDatabase`.
    V037Btree,
    /// 0.3.7 key-value `MerkleState` over `LmdbDatabase` (same flags as 0.4.7).
    V037Lmdb,
    /// 0.3.7 `SqliteDatabase`, WAL, synchronous NORMAL (set on one pooled connection only).
    V037SqliteWal,
    /// 0.3.7 `SqliteDatabase`, WAL, synchronous FULL.
    V037SqliteWalFull,
    /// 0.3.7 `SqliteDatabase`, rollback journal, synchronous FULL.
    V037SqliteRollback,
    /// 0.3.7 `RedisDatabase` on a managed `redis-server` (no persistence).
    V037Redis,
}

/// Every implementation, 0.4.7 first.
pub const IMPLEMENTATIONS: [Implementation; 12] = [
    Implementation::V047Btree,
    Implementation::V047Lmdb,
    Implementation::V047SqliteWal,
    Implementation::V047SqliteWalFull,
    Implementation::V047SqliteRollback,
    Implementation::V047Postgres,
    Implementation::V037Btree,
    Implementation::V037Lmdb,
    Implementation::V037SqliteWal,
    Implementation::V037SqliteWalFull,
    Implementation::V037SqliteRollback,
    Implementation::V037Redis,
];

impl Implementation {
    /// `transact-0.4.7` or `transact-0.3.7`.
    pub const fn version(self) -> &'static str {
        use Implementation::*;
        match self {
            V047Btree | V047Lmdb | V047SqliteWal | V047SqliteWalFull | V047SqliteRollback
            | V047Postgres => "transact-0.4.7",
            _ => "transact-0.3.7",
        }
    }

    /// The triebench profile this implementation is compared with.
    pub const fn profile(self) -> &'static str {
        use Implementation::*;
        match self {
            V047Btree | V037Btree => "btree",
            V047Lmdb | V037Lmdb => "lmdb",
            V047SqliteWal | V037SqliteWal => "sqlite-wal",
            V047SqliteWalFull | V037SqliteWalFull => "sqlite-wal-full",
            V047SqliteRollback | V037SqliteRollback => "sqlite-rollback",
            V047Postgres => "postgres",
            V037Redis => "redis",
        }
    }

    /// The bench id part: `transact-0.4.7:lmdb`.
    pub fn id(self) -> String {
        format!("{}:{}", self.version(), self.profile())
    }

    /// Whether a commit reaches stable storage before it returns (an fsync or equivalent).
    pub const fn fsyncs_per_commit(self) -> bool {
        use Implementation::*;
        matches!(
            self,
            V047SqliteWalFull
                | V047SqliteRollback
                | V047Postgres
                | V037SqliteWalFull
                | V037SqliteRollback
        )
    }

    /// Whether this implementation can run here: PostgreSQL needs `POSTGRES_URL`, Redis a
    /// `redis-server` on `PATH` (or `REDIS_URL`).
    pub fn available(self) -> bool {
        match self {
            Implementation::V047Postgres => postgres_url().is_some(),
            _ => true,
        }
    }

    /// Every implementation id, comma-separated, for error messages.
    pub fn valid_names() -> String {
        IMPLEMENTATIONS.map(Implementation::id).join(", ")
    }

    /// Opens a fresh store of this implementation in `dir` (which must exist and be empty);
    /// servers it starts live in `dir` too and stop when the [`OpenState`] drops.
    pub fn open(self, dir: &Path) -> Result<OpenState, TransactError> {
        let fail = |message: String| TransactError::Open {
            implementation: self.id(),
            message,
        };
        use Implementation::*;
        // A 0.4.7 state, also as Transact's own traits see it.
        let v047 = |v: V047<_>| -> Opened {
            let native = Native047 {
                state: v.full_state(),
                remove_pruned: None,
            };
            (Box::new(v), Some(native), None)
        };
        let (state, full047, server): Opened = match self {
            V047Btree => {
                let db = transact::database::btree::BTreeDatabase::new(
                    &transact::state::merkle::INDEXES,
                );
                v047(kv047(Box::new(db)).map_err(fail)?)
            }
            V047Lmdb => {
                use transact::database::lmdb::{LmdbContext, LmdbDatabase};
                let indexes = transact::state::merkle::INDEXES;
                let ctx =
                    LmdbContext::new(&dir.join("merkle.lmdb"), indexes.len(), Some(LMDB_MAP_SIZE))
                        .map_err(|e| fail(e.to_string()))?;
                let db = LmdbDatabase::new(ctx, &indexes).map_err(|e| fail(e.to_string()))?;
                v047(kv047(Box::new(db)).map_err(fail)?)
            }
            V047SqliteWal | V047SqliteWalFull | V047SqliteRollback => {
                use transact::state::merkle::sql::backend::{
                    JournalMode, SqliteBackendBuilder, Synchronous,
                };
                let (journal, sync) = match self {
                    V047SqliteWal => (JournalMode::Wal, Synchronous::Normal),
                    V047SqliteWalFull => (JournalMode::Wal, Synchronous::Full),
                    _ => (JournalMode::Delete, Synchronous::Full),
                };
                let path = dir.join("merkle.sqlite");
                let backend = SqliteBackendBuilder::new()
                    .with_connection_path(path.to_string_lossy().into_owned())
                    .with_create()
                    .with_journal_mode(journal)
                    .with_synchronous(sync)
                    .build()
                    .map_err(|e| fail(e.to_string()))?;
                sql047(backend, "triebench").map_err(fail)?
            }
            V047Postgres => {
                use transact::state::merkle::sql::backend::PostgresBackendBuilder;
                let url = postgres_url().ok_or_else(|| {
                    fail(format!("set {POSTGRES_URL_VAR} to a PostgreSQL server"))
                })?;
                let backend = PostgresBackendBuilder::new()
                    .with_url(url)
                    .build()
                    .map_err(|e| fail(e.to_string()))?;
                // One server holds many runs: a tree per directory keeps them apart.
                let tree = unique_name(dir);
                sql047(backend, &tree).map_err(fail)?
            }
            V037Btree => {
                let db = transact037::database::btree::BTreeDatabase::new(
                    &transact037::state::merkle::INDEXES,
                );
                (Box::new(kv037(Box::new(db)).map_err(fail)?), None, None)
            }
            V037Lmdb => {
                use transact037::database::lmdb::{LmdbContext, LmdbDatabase};
                let indexes = transact037::state::merkle::INDEXES;
                let ctx =
                    LmdbContext::new(&dir.join("merkle.lmdb"), indexes.len(), Some(LMDB_MAP_SIZE))
                        .map_err(|e| fail(e.to_string()))?;
                let db = LmdbDatabase::new(ctx, &indexes).map_err(|e| fail(e.to_string()))?;
                (Box::new(kv037(Box::new(db)).map_err(fail)?), None, None)
            }
            V037SqliteWal | V037SqliteWalFull | V037SqliteRollback => {
                use transact037::database::sqlite::{SqliteDatabase, Synchronous};
                let path = dir.join("merkle.sqlite");
                let mut builder = SqliteDatabase::builder()
                    .with_path(path.to_string_lossy().into_owned())
                    .with_indexes(&transact037::state::merkle::INDEXES)
                    .with_connection_pool_size(NonZeroU32::MIN);
                builder = match self {
                    V037SqliteWal => builder
                        .with_write_ahead_log_mode()
                        .with_synchronous(Synchronous::Normal),
                    V037SqliteWalFull => builder
                        .with_write_ahead_log_mode()
                        .with_synchronous(Synchronous::Full),
                    _ => builder.with_synchronous(Synchronous::Full),
                };
                let db = builder.build().map_err(|e| fail(e.to_string()))?;
                (Box::new(kv037(Box::new(db)).map_err(fail)?), None, None)
            }
            V037Redis => {
                let (url, server) = match std::env::var("REDIS_URL").ok().filter(|u| !u.is_empty())
                {
                    Some(url) => (url, None),
                    None => {
                        let server = RedisServer::start(&dir.join("redis"), false)
                            .map_err(|e| fail(e.to_string()))?;
                        (server.url().to_string(), Some(server))
                    }
                };
                let db = transact037::database::redis::RedisDatabase::new(
                    &url,
                    unique_name(dir),
                    &transact037::state::merkle::INDEXES,
                )
                .map_err(|e| fail(e.to_string()))?;
                (Box::new(kv037(Box::new(db)).map_err(fail)?), None, server)
            }
        };
        Ok(OpenState {
            state,
            full047,
            _server: server,
        })
    }
}

/// What [`Implementation::open`] makes before it wraps it: the state, the same 0.4.7 state as
/// Transact's traits see it, and the server it started.
type Opened = (
    Box<dyn TransactState>,
    Option<Native047>,
    Option<RedisServer>,
);

/// A 0.4.7 state as Transact's own traits see it (what its executor runs over), and, for the
/// SQL states, the call that deletes the rows their `prune` only marks.
pub struct Native047 {
    /// The state.
    pub state: Box<dyn FullState>,
    /// `SqlMerkleState::remove_pruned_entries` (not part of Transact's `Prune` trait); `None`
    /// for the key-value `MerkleState`, whose prune deletes.
    pub remove_pruned: Option<RemovePruned>,
}

/// A name unique to `dir` (its last component), for stores shared between runs.
fn unique_name(dir: &Path) -> String {
    let base: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("triebench_{base}")
}

/// A 0.4.7 key-value `MerkleState` over `db`, with the empty root stored.
fn kv047(
    db: Box<dyn transact::database::Database>,
) -> Result<V047<transact::state::merkle::MerkleState>, String> {
    use transact::state::merkle::{MerkleRadixTree, MerkleState};
    let initial = MerkleRadixTree::new(db.clone(), None)
        .map_err(|e| e.to_string())?
        .get_merkle_root();
    Ok(V047::new(MerkleState::new(db), initial))
}

/// A 0.3.7 key-value `MerkleState` over `db`, with the empty root stored.
fn kv037(
    db: Box<dyn transact037::database::Database>,
) -> Result<V037<transact037::state::merkle::MerkleState>, String> {
    use transact037::state::merkle::{MerkleRadixTree, MerkleState};
    let initial = MerkleRadixTree::new(db.clone(), None)
        .map_err(|e| e.to_string())?
        .get_merkle_root();
    Ok(V037::new(MerkleState::new(db), initial))
}

/// A 0.4.7 `SqlMerkleState` on `backend`, migrations run, tree `tree` created.
fn sql047<B>(backend: B, tree: &str) -> Result<Opened, String>
where
    B: transact::state::merkle::sql::backend::Backend
        + transact::state::merkle::sql::migration::MigrationManager
        + Clone
        + 'static,
    transact::state::merkle::sql::SqlMerkleStateBuilder<B>: BuildSql<B>,
    transact::state::merkle::sql::SqlMerkleState<B>: FullState,
{
    backend.run_migrations().map_err(|e| e.to_string())?;
    let state = transact::state::merkle::sql::SqlMerkleStateBuilder::new()
        .with_backend(backend)
        .with_tree(tree)
        .create_tree_if_necessary()
        .build_state()?;
    let initial = state.initial_state_root_hash().map_err(|e| e.to_string())?;
    let sql = state.clone();
    let remove_pruned: RemovePruned = Box::new(move || {
        <transact::state::merkle::sql::SqlMerkleStateBuilder<B> as BuildSql<B>>::remove_pruned(&sql)
    });
    let v = V047::new(state, initial);
    let native = Native047 {
        state: v.full_state(),
        remove_pruned: Some(remove_pruned),
    };
    Ok((Box::new(v), Some(native), None))
}

/// `SqlMerkleStateBuilder::build` (and `SqlMerkleState::remove_pruned_entries`) exist once per
/// backend type in Transact; this trait names them for both so [`sql047`] can be generic.
trait BuildSql<B: transact::state::merkle::sql::backend::Backend> {
    fn build_state(self) -> Result<transact::state::merkle::sql::SqlMerkleState<B>, String>;
    /// `SqlMerkleState::remove_pruned_entries`, also once per backend in Transact.
    fn remove_pruned(state: &transact::state::merkle::sql::SqlMerkleState<B>)
        -> Result<(), String>;
}

impl BuildSql<transact::state::merkle::sql::backend::SqliteBackend>
    for transact::state::merkle::sql::SqlMerkleStateBuilder<
        transact::state::merkle::sql::backend::SqliteBackend,
    >
{
    fn build_state(
        self,
    ) -> Result<
        transact::state::merkle::sql::SqlMerkleState<
            transact::state::merkle::sql::backend::SqliteBackend,
        >,
        String,
    > {
        self.build().map_err(|e| e.to_string())
    }

    fn remove_pruned(
        state: &transact::state::merkle::sql::SqlMerkleState<
            transact::state::merkle::sql::backend::SqliteBackend,
        >,
    ) -> Result<(), String> {
        state.remove_pruned_entries().map_err(|e| e.to_string())
    }
}

impl BuildSql<transact::state::merkle::sql::backend::PostgresBackend>
    for transact::state::merkle::sql::SqlMerkleStateBuilder<
        transact::state::merkle::sql::backend::PostgresBackend,
    >
{
    fn build_state(
        self,
    ) -> Result<
        transact::state::merkle::sql::SqlMerkleState<
            transact::state::merkle::sql::backend::PostgresBackend,
        >,
        String,
    > {
        self.build().map_err(|e| e.to_string())
    }

    fn remove_pruned(
        state: &transact::state::merkle::sql::SqlMerkleState<
            transact::state::merkle::sql::backend::PostgresBackend,
        >,
    ) -> Result<(), String> {
        state.remove_pruned_entries().map_err(|e| e.to_string())
    }
}

/// A Transact store, open; servers it started stop when it drops (after the state).
pub struct OpenState {
    /// The state the workloads drive.
    pub state: Box<dyn TransactState>,
    /// A 0.4.7 state as Transact's own `Read`, `Write` and `Prune` see it; `None` for 0.3.7.
    pub full047: Option<Native047>,
    _server: Option<RedisServer>,
}

impl fmt::Display for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

impl FromStr for Implementation {
    type Err = TransactError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        IMPLEMENTATIONS
            .into_iter()
            .find(|i| i.id() == name)
            .ok_or_else(|| TransactError::Unknown {
                kind: "implementation",
                name: name.to_string(),
                valid: Implementation::valid_names(),
            })
    }
}
