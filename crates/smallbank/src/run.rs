//! A run: a family's transactions (SmallBank's playlist, or the command family's) in blocks, each block executed by Transact's executor and
//! committed on both sides (triebench-transact-state on a profile, Transact's MerkleState in
//! memory), the previous root pruned, every block's root compared.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use transact::database::btree::BTreeDatabase;
use transact::protocol::batch::BatchPair;
use transact::state::merkle::{MerkleRadixTree, MerkleState, INDEXES};
use transact::state::{Prune, StateChange, Write};
use triebench_kv::Store;

use crate::batch::batch_of;
use crate::error::SmallbankError;
use crate::family::Family;
use crate::io_counter::{dir_bytes, write_bytes};
use crate::pipeline::{Executed, Pipeline};
use crate::result::{Percentiles, SideFigures, SmallbankResult};

/// What to run, where.
#[derive(Debug, Clone)]
pub struct SmallbankOptions {
    /// The transaction family (SmallBank by default).
    pub family: Family,
    /// The triebench profile (`btree`, `lmdb`, `sqlite-wal-full`, `postgres`, ...).
    pub profile: String,
    /// The state directory for file-backed profiles (created if missing).
    pub dir: Option<PathBuf>,
    /// Accounts the playlist creates first (at least 2), or keys the command family creates
    /// (at least 1).
    pub accounts: u64,
    /// Transactions after the account creations.
    pub transactions: u64,
    /// Transactions per block (at least 1).
    pub block_size: u64,
    /// The playlist's seed.
    pub seed: u64,
    /// Where to write the run's per-block changes as a `triebench root` commit file, with the
    /// roots beside it in `<trace>.roots`.
    pub trace: Option<PathBuf>,
}

/// How far a run has got, for a progress line.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Blocks done.
    pub block: u64,
    /// Blocks in the run.
    pub blocks: u64,
    /// Seconds since the run started.
    pub elapsed_s: f64,
}

/// One side's per-block times.
#[derive(Default)]
struct Times {
    execute_ns: Vec<u64>,
    commit_ns: Vec<u64>,
}

impl Times {
    fn figures(mut self, transactions: u64) -> SideFigures {
        let execute_s = self.execute_ns.iter().sum::<u64>() as f64 / 1e9;
        let commit_s = self.commit_ns.iter().sum::<u64>() as f64 / 1e9;
        let total_s = execute_s + commit_s;
        let blocks = self.execute_ns.len() as f64;
        let per_s = |n: f64| if total_s > 0.0 { n / total_s } else { 0.0 };
        SideFigures {
            total_s,
            execute_s,
            commit_s,
            transactions_per_s: per_s(transactions as f64),
            blocks_per_s: per_s(blocks),
            execute: Percentiles::of(&mut self.execute_ns),
            commit: Percentiles::of(&mut self.commit_ns),
        }
    }
}

fn ns_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// A block's changes as one commit: the last change to each address wins, in address order
/// (what the block's final context holds; each address appears once, as the commit file
/// format requires).
fn block_commit(executed: &Executed) -> Vec<StateChange> {
    let mut last: BTreeMap<&str, &StateChange> = BTreeMap::new();
    for change in &executed.changes {
        let key = match change {
            StateChange::Set { key, .. } | StateChange::Delete { key } => key.as_str(),
        };
        last.insert(key, change);
    }
    last.into_values().cloned().collect()
}

/// Whether two commits change the same addresses to the same values (Transact's
/// `StateChange` has no `PartialEq`).
fn same_changes(a: &[StateChange], b: &[StateChange]) -> bool {
    let view = |c: &StateChange| match c {
        StateChange::Set { key, value } => (key.clone(), Some(value.clone())),
        StateChange::Delete { key } => (key.clone(), None),
    };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| view(x) == view(y))
}

/// The commit file line of a block's changes.
fn trace_line(changes: &[StateChange]) -> String {
    let mut set = serde_json::Map::new();
    let mut delete = Vec::new();
    for change in changes {
        match change {
            StateChange::Set { key, value } => {
                set.insert(key.clone(), serde_json::Value::String(hex::encode(value)));
            }
            StateChange::Delete { key } => delete.push(serde_json::Value::String(key.clone())),
        }
    }
    let mut line = serde_json::Map::new();
    line.insert("set".into(), serde_json::Value::Object(set));
    if !delete.is_empty() {
        line.insert("delete".into(), serde_json::Value::Array(delete));
    }
    serde_json::Value::Object(line).to_string()
}

/// The trace's two files, open.
struct Trace {
    path: PathBuf,
    changes: BufWriter<File>,
    roots: BufWriter<File>,
}

impl Trace {
    fn create(path: &Path) -> Result<Self, SmallbankError> {
        let err = |source| SmallbankError::Trace {
            path: path.to_path_buf(),
            source,
        };
        let changes = File::create(path).map_err(err)?;
        let roots = File::create(roots_path(path)).map_err(err)?;
        Ok(Trace {
            path: path.to_path_buf(),
            changes: BufWriter::new(changes),
            roots: BufWriter::new(roots),
        })
    }

    fn error(&self, source: std::io::Error) -> SmallbankError {
        SmallbankError::Trace {
            path: self.path.clone(),
            source,
        }
    }

    fn block(&mut self, changes: &[StateChange], root: &str) -> Result<(), SmallbankError> {
        let written = writeln!(self.changes, "{}", trace_line(changes))
            .and_then(|()| writeln!(self.roots, "{root}"));
        written.map_err(|e| self.error(e))
    }

    fn finish(mut self) -> Result<(), SmallbankError> {
        let flushed = self.changes.flush().and_then(|()| self.roots.flush());
        flushed.map_err(|e| self.error(e))
    }
}

/// Where a trace's roots go: `<trace>.roots`, one root per block, as `triebench root` prints
/// them when it replays the trace.
pub fn roots_path(trace: &Path) -> PathBuf {
    let mut name = trace.as_os_str().to_owned();
    name.push(".roots");
    PathBuf::from(name)
}

/// Runs the playlist in blocks on both sides, comparing every block's root; `progress` is
/// called after each block.
pub fn run(
    options: &SmallbankOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<SmallbankResult, SmallbankError> {
    let family = options.family;
    if options.accounts < family.min_accounts() {
        return Err(SmallbankError::Options(format!(
            "--accounts must be at least {} for {family} (a payment needs two accounts, a \
             command run one key), got {}",
            family.min_accounts(),
            options.accounts
        )));
    }
    if options.block_size == 0 {
        return Err(SmallbankError::Options(
            "--block-size must be at least 1".into(),
        ));
    }
    if let Some(dir) = &options.dir {
        std::fs::create_dir_all(dir).map_err(|source| SmallbankError::Directory {
            path: dir.clone(),
            source,
        })?;
    }
    let ours = triebench_transact_state::open(&options.profile, options.dir.as_deref()).map_err(
        |source| SmallbankError::Open {
            profile: options.profile.clone(),
            source,
        },
    )?;
    let server = ours.trie().store().server_pid();

    let db = Box::new(BTreeDatabase::new(&INDEXES));
    let transact_root = MerkleRadixTree::new(db.clone(), None)
        .map_err(|e| state_error("transact", 0, e))?
        .get_merkle_root();
    let theirs = MerkleState::new(db);
    let mut root = ours.initial_root();
    if root != transact_root {
        return Err(SmallbankError::RootMismatch {
            block: 0,
            ours: root,
            theirs: transact_root,
        });
    }

    let start_error = |side: &'static str| {
        move |message| SmallbankError::Execution {
            side,
            block: 0,
            message,
        }
    };
    let our_pipeline =
        Pipeline::start(Box::new(ours.clone()), family).map_err(start_error("triebench"))?;
    let their_pipeline =
        Pipeline::start(Box::new(theirs.clone()), family).map_err(start_error("transact"))?;

    let mut trace = options.trace.as_deref().map(Trace::create).transpose()?;
    let total = options.accounts + options.transactions;
    let blocks = total.div_ceil(options.block_size);
    let mut playlist = family
        .transactions(options.accounts, options.seed)
        .take(total as usize);
    let mut result = SmallbankResult {
        family: family.name().to_string(),
        profile: options.profile.clone(),
        accounts: options.accounts,
        transactions: options.transactions,
        block_size: options.block_size,
        seed: options.seed,
        ..SmallbankResult::default()
    };
    let (mut our_times, mut their_times) = (Times::default(), Times::default());
    let mut written = 0u64;
    let mut changed = 0u64;
    let started = Instant::now();
    let mut index = 0u64;
    let outcome = (|| {
        for block in 1..=blocks {
            let mut batches: Vec<BatchPair> = Vec::with_capacity(options.block_size as usize);
            for transaction in playlist.by_ref().take(options.block_size as usize) {
                batches.push(batch_of(index, &transaction?)?);
                index += 1;
            }
            let exec_error = |side: &'static str| {
                move |message| SmallbankError::Execution {
                    side,
                    block,
                    message,
                }
            };

            // triebench: execute, then commit the block and prune the previous root.
            let t = Instant::now();
            let executed = our_pipeline
                .execute(&root, batches.clone())
                .map_err(exec_error("triebench"))?;
            our_times.execute_ns.push(ns_since(t));
            let changes = block_commit(&executed);
            let before = write_bytes(server);
            let t = Instant::now();
            let ours_next = ours
                .commit(&root, &changes)
                .map_err(|e| state_error("triebench", block, e))?;
            if ours_next != root {
                ours.prune(vec![root.clone()])
                    .map_err(|e| state_error("triebench", block, e))?;
            }
            our_times.commit_ns.push(ns_since(t));
            written += write_bytes(server).saturating_sub(before);

            // Transact: the same on its MerkleState.
            let t = Instant::now();
            let their_executed = their_pipeline
                .execute(&root, batches)
                .map_err(exec_error("transact"))?;
            their_times.execute_ns.push(ns_since(t));
            let their_changes = block_commit(&their_executed);
            let t = Instant::now();
            let theirs_next = theirs
                .commit(&root, &their_changes)
                .map_err(|e| state_error("transact", block, e))?;
            // Transact 0.4.7 deletes its live head when a prune follows a commit that changed
            // nothing (docs/findings/transact.md): both sides prune only a root left behind.
            if theirs_next != root {
                theirs
                    .prune(vec![root.clone()])
                    .map_err(|e| state_error("transact", block, e))?;
            }
            their_times.commit_ns.push(ns_since(t));

            if !same_changes(&changes, &their_changes) {
                return Err(SmallbankError::ChangesMismatch {
                    block,
                    ours: changes.len(),
                    theirs: their_changes.len(),
                });
            }
            if ours_next != theirs_next {
                return Err(SmallbankError::RootMismatch {
                    block,
                    ours: ours_next,
                    theirs: theirs_next,
                });
            }
            if let Some(trace) = trace.as_mut() {
                trace.block(&changes, &ours_next)?;
            }
            result.valid_transactions += executed.valid;
            result.invalid_transactions += executed.invalid;
            changed += changes.len() as u64;
            root = ours_next;
            result.blocks = block;
            progress(Progress {
                block,
                blocks,
                elapsed_s: started.elapsed().as_secs_f64(),
            });
        }
        Ok(())
    })();
    our_pipeline.stop();
    their_pipeline.stop();
    outcome?;
    if let Some(trace) = trace {
        trace.finish()?;
    }

    let executed = result.valid_transactions + result.invalid_transactions;
    let per_block = |n: u64| n as f64 / result.blocks.max(1) as f64;
    result.final_root = root;
    result.changes_per_block = per_block(changed);
    result.triebench = our_times.figures(executed);
    result.transact = their_times.figures(executed);
    result.triebench_bytes_written_per_block = per_block(written);
    result.state_bytes = options.dir.as_deref().map(dir_bytes).unwrap_or(0);
    Ok(result)
}

fn state_error(side: &'static str, block: u64, e: impl std::fmt::Display) -> SmallbankError {
    SmallbankError::State {
        side,
        block,
        message: e.to_string(),
    }
}
