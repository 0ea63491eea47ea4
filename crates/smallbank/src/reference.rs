//! [`Reference`]: the Transact side of a run, which every block of triebench's is checked
//! against. Either Transact's `MerkleState` over its in-memory `BTreeDatabase` in this process
//! ([`TransactStore::Memory`]), or one of Transact's own durable states (LMDB, SQLite,
//! PostgreSQL) in a `transact-runner` process ([`TransactStore::Runner`]): those link their
//! own LMDB and SQLite libraries, which cannot sit beside triebench-kv's in one binary.

use std::path::PathBuf;

use transact::database::btree::BTreeDatabase;
use transact::protocol::batch::BatchPair;
use transact::state::merkle::{MerkleRadixTree, MerkleState, INDEXES};

use crate::error::SmallbankError;
use crate::io_counter::dir_bytes;
use crate::options::{SmallbankOptions, TransactStore};
use crate::runner_child::RunnerChild;
use crate::runner_protocol::RunnerRequest;
use crate::side::{BlockOutcome, Side};

/// Where a run's Transact store goes under the run's directory.
pub const TRANSACT_DIR: &str = "transact";

/// The Transact side, started.
pub enum Reference {
    /// In this process.
    InProcess(Side),
    /// In a `transact-runner` process.
    Runner {
        /// The runner.
        child: RunnerChild,
        /// `<dir>/transact`, whose size is the Transact state's.
        dir: PathBuf,
        /// The PostgreSQL server started for `transact-0.4.7:postgres` (its writes count as
        /// Transact's); dropped after the runner.
        #[cfg(feature = "postgres-db")]
        server: Option<triebench_kv::postgres::PgServer>,
    },
}

impl Reference {
    /// Starts the Transact side `options.transact` names (a runner's store goes under
    /// `options.dir`); returns it and the empty trie's root.
    pub fn start(options: &SmallbankOptions) -> Result<(Reference, String), SmallbankError> {
        let family = options.family;
        match &options.transact {
            TransactStore::Memory => {
                let db = Box::new(BTreeDatabase::new(&INDEXES));
                let root = MerkleRadixTree::new(db.clone(), None)
                    .map_err(|e| SmallbankError::State {
                        side: "transact",
                        block: 0,
                        message: e.to_string(),
                    })?
                    .get_merkle_root();
                let side = Side::start("transact", Box::new(MerkleState::new(db)), family, None)?;
                Ok((Reference::InProcess(side), root))
            }
            TransactStore::Runner {
                implementation,
                runner,
                remove_pruned,
            } => {
                let dir = options.dir.as_deref().ok_or_else(|| {
                    SmallbankError::Options(format!(
                        "--transact {implementation} keeps its store under --dir: give one"
                    ))
                })?;
                let top = dir.join(TRANSACT_DIR);
                // create_dir, not create_dir_all: an existing path (a link included) is refused.
                std::fs::create_dir(&top).map_err(|source| {
                    if source.kind() == std::io::ErrorKind::AlreadyExists {
                        SmallbankError::Options(format!(
                            "{} already exists (an earlier run's Transact store?): remove it or \
                             give a fresh --dir",
                            top.display()
                        ))
                    } else {
                        SmallbankError::Directory {
                            path: top.clone(),
                            source,
                        }
                    }
                })?;
                // What this start made under `top` goes again if it fails, so the same
                // command can be run again.
                let started = (|| {
                    let store_dir = top.join("store");
                    std::fs::create_dir(&store_dir).map_err(|source| {
                        SmallbankError::Directory {
                            path: store_dir.clone(),
                            source,
                        }
                    })?;
                    #[cfg(feature = "postgres-db")]
                    let (server, env) = postgres_for(implementation, &top)?;
                    #[cfg(not(feature = "postgres-db"))]
                    let env: Vec<(&str, String)> = Vec::new();
                    let request = RunnerRequest {
                        implementation: implementation.clone(),
                        family: family.name().to_string(),
                        accounts: options.accounts,
                        transactions: options.transactions,
                        block_size: options.block_size,
                        seed: options.seed,
                        dir: store_dir,
                        remove_pruned: *remove_pruned,
                    };
                    let child = RunnerChild::start(runner, &request, &env)?;
                    let root = child.initial_root.clone();
                    Ok((
                        Reference::Runner {
                            child,
                            dir: top.clone(),
                            #[cfg(feature = "postgres-db")]
                            server,
                        },
                        root,
                    ))
                })();
                if started.is_err() {
                    let _ = std::fs::remove_dir_all(&top);
                }
                started
            }
        }
    }

    /// Runs block `block` (`batches`, on `root`; a runner makes the same batches itself and
    /// keeps its own root).
    pub fn block(
        &mut self,
        block: u64,
        root: &str,
        batches: Vec<BatchPair>,
    ) -> Result<BlockOutcome, SmallbankError> {
        match self {
            Reference::InProcess(side) => Ok(side.block(block, root, batches)?.outcome),
            Reference::Runner {
                child,
                #[cfg(feature = "postgres-db")]
                server,
                ..
            } => {
                #[cfg(feature = "postgres-db")]
                let server_pids: Vec<u32> = server.iter().map(|s| s.pid()).collect();
                #[cfg(not(feature = "postgres-db"))]
                let server_pids: Vec<u32> = Vec::new();
                let server_writes = || {
                    if server_pids.is_empty() {
                        0
                    } else {
                        triebench_record::proc_stats::write_bytes(&server_pids)
                    }
                };
                let before = server_writes();
                let mut outcome = child.block()?;
                outcome.written_bytes += server_writes().saturating_sub(before);
                Ok(outcome)
            }
        }
    }

    /// Bytes Transact's store takes on disk (0 in memory).
    pub fn state_bytes(&self) -> u64 {
        match self {
            Reference::InProcess(_) => 0,
            Reference::Runner { dir, .. } => dir_bytes(dir),
        }
    }

    /// Stops the executor (and the runner, and its server).
    pub fn finish(self) -> Result<(), SmallbankError> {
        match self {
            Reference::InProcess(side) => {
                side.stop();
                Ok(())
            }
            Reference::Runner { child, .. } => child.finish(),
        }
    }
}

/// For `transact-0.4.7:postgres` without `POSTGRES_URL`: a PostgreSQL server of its own in
/// `<top>/postgres` (on the filesystem under test, as triebench's `postgres` profile's), and
/// the runner's environment naming it.
#[cfg(feature = "postgres-db")]
#[allow(clippy::type_complexity)]
fn postgres_for(
    implementation: &str,
    top: &std::path::Path,
) -> Result<
    (
        Option<triebench_kv::postgres::PgServer>,
        Vec<(&'static str, String)>,
    ),
    SmallbankError,
> {
    if !implementation.ends_with(":postgres")
        || std::env::var_os("POSTGRES_URL").is_some_and(|v| !v.is_empty())
    {
        return Ok((None, Vec::new()));
    }
    let dir = top.join("postgres");
    std::fs::create_dir(&dir).map_err(|source| SmallbankError::Directory {
        path: dir.clone(),
        source,
    })?;
    let server = triebench_kv::postgres::PgServer::start(&dir).map_err(|e| {
        SmallbankError::Runner(format!("starting Transact's PostgreSQL server: {e}"))
    })?;
    let url = server.url();
    Ok((Some(server), vec![("POSTGRES_URL", url)]))
}
