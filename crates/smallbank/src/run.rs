//! A run: a family's transactions (SmallBank's playlist, or the command family's) in blocks,
//! each block executed by Transact's executor and committed on both sides (triebench's
//! [`Side`] on a profile, then the Transact [`Reference`]: its MerkleState in memory, or one of
//! its durable states in a `transact-runner`), the previous root pruned, every block's changes
//! and root compared.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use triebench_kv::Store;

use crate::blocks::Blocks;
use crate::error::SmallbankError;
use crate::io_counter::dir_bytes;
use crate::options::SmallbankOptions;
use crate::reference::{Reference, TRANSACT_DIR};
use crate::result::{Percentiles, SideFigures, SmallbankResult};
use crate::side::{BlockOutcome, Side};

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
    fn add(&mut self, outcome: &BlockOutcome) {
        self.execute_ns.push(outcome.execute_ns);
        self.commit_ns.push(outcome.commit_ns);
    }

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

    fn block(&mut self, line: &str, root: &str) -> Result<(), SmallbankError> {
        let written =
            writeln!(self.changes, "{line}").and_then(|()| writeln!(self.roots, "{root}"));
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
    let mut root = ours.initial_root();
    let (mut reference, transact_root) = Reference::start(options)?;
    if root != transact_root {
        let _ = reference.finish();
        return Err(SmallbankError::RootMismatch {
            block: 0,
            ours: root,
            theirs: transact_root,
        });
    }
    let our_side = match Side::start("triebench", Box::new(ours), family, server) {
        Ok(side) => side,
        Err(e) => {
            let _ = reference.finish();
            return Err(e);
        }
    };

    let mut result = SmallbankResult {
        family: family.name().to_string(),
        profile: options.profile.clone(),
        transact_state: options.transact.name(),
        transact_removes_pruned: options.transact.removes_pruned(),
        accounts: options.accounts,
        transactions: options.transactions,
        block_size: options.block_size,
        seed: options.seed,
        ..SmallbankResult::default()
    };
    let (mut our_times, mut their_times) = (Times::default(), Times::default());
    let (mut our_written, mut their_written) = (0u64, 0u64);
    let mut changed = 0u64;
    let started = Instant::now();
    let outcome = (|| {
        let mut trace = options.trace.as_deref().map(Trace::create).transpose()?;
        let mut blocks = Blocks::new(
            family,
            options.accounts,
            options.transactions,
            options.block_size,
            options.seed,
        );
        while let Some((block, batches)) = blocks.next_block()? {
            // triebench, then Transact: execute, commit the block, prune the previous root.
            let ours = our_side.block(block, &root, batches.clone())?;
            let theirs = reference.block(block, &root, batches)?;
            if ours.outcome.changes_sha256 != theirs.changes_sha256 {
                return Err(SmallbankError::ChangesMismatch {
                    block,
                    ours: ours.outcome.changes,
                    theirs: theirs.changes,
                });
            }
            if ours.outcome.root != theirs.root {
                return Err(SmallbankError::RootMismatch {
                    block,
                    ours: ours.outcome.root,
                    theirs: theirs.root,
                });
            }
            if let Some(trace) = trace.as_mut() {
                trace.block(&ours.line, &ours.outcome.root)?;
            }
            our_times.add(&ours.outcome);
            their_times.add(&theirs);
            our_written += ours.outcome.written_bytes;
            their_written += theirs.written_bytes;
            result.valid_transactions += ours.outcome.valid;
            result.invalid_transactions += ours.outcome.invalid;
            changed += ours.outcome.changes;
            root = ours.outcome.root;
            result.blocks = block;
            progress(Progress {
                block,
                blocks: blocks.count,
                elapsed_s: started.elapsed().as_secs_f64(),
            });
        }
        if let Some(trace) = trace {
            trace.finish()?;
        }
        Ok(())
    })();
    our_side.stop();
    let transact_state_bytes = reference.state_bytes();
    let finished = reference.finish();
    outcome?;
    finished?;

    let executed = result.valid_transactions + result.invalid_transactions;
    let per_block = |n: u64| n as f64 / result.blocks.max(1) as f64;
    result.final_root = root;
    result.changes_per_block = per_block(changed);
    result.triebench = our_times.figures(executed);
    result.transact = their_times.figures(executed);
    result.triebench_bytes_written_per_block = per_block(our_written);
    result.transact_bytes_written_per_block = per_block(their_written);
    result.transact_state_bytes = transact_state_bytes;
    result.state_bytes = options
        .dir
        .as_deref()
        .map(|dir| dir_bytes(dir).saturating_sub(dir_bytes(&dir.join(TRANSACT_DIR))))
        .unwrap_or(0);
    Ok(result)
}
