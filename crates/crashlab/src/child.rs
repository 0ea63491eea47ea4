//! The crash-test child: the process `triebench crash-test` starts and kills. It opens the
//! store, prints [`READY`], then commits random batches forever ([`commit_forever`]), printing
//! each new root on its own line (flushed) the moment `commit` has returned: a printed root is
//! an acknowledged one. It never stops by itself; the parent kills it.

use std::convert::Infallible;
use std::io::{self, Write};
use std::path::PathBuf;

use triebench_kv::{BackendSpec, Store, StoreVisitor};
use triebench_merkle::MerkleTrie;

use crate::batches::BatchGen;
use crate::error::CrashError;

/// The line printed once the store is open and commits start.
pub(crate) const READY: &str = "ready";

/// What the child commits on.
#[derive(Debug, Clone)]
pub struct ChildOptions {
    /// Backend profile name.
    pub backend: String,
    /// The store's directory.
    pub dir: PathBuf,
    /// Seed of the random batches.
    pub seed: u64,
    /// The root to resume from (`None`: the empty root).
    pub from: Option<String>,
}

/// Opens the store and commits until killed, acknowledging each root on stdout. Returns only
/// with the reason it stopped.
///
/// # Errors
/// A bad profile or a store that does not open ([`CrashError::Backend`]); a failed commit or
/// acknowledgement, wrapped in [`CrashError::ChildStopped`].
pub fn run_child(options: ChildOptions) -> Result<Infallible, CrashError> {
    let spec = BackendSpec::parse(&options.backend, Some(options.dir))?;
    let visitor = ChildVisitor {
        from: options.from,
        seed: options.seed,
    };
    let err = spec.open(triebench_merkle::TABLES, visitor)?;
    Err(CrashError::ChildStopped(Box::new(err)))
}

struct ChildVisitor {
    from: Option<String>,
    seed: u64,
}

impl StoreVisitor for ChildVisitor {
    type Output = CrashError;

    fn visit<S: Store + 'static>(self, store: S) -> CrashError {
        let stdout = io::stdout();
        let out = std::cell::RefCell::new(stdout.lock());
        let ready = || {
            let mut out = out.borrow_mut();
            writeln!(out, "{READY}")?;
            out.flush()
        };
        let ack = |root: &str| {
            let mut out = out.borrow_mut();
            writeln!(out, "{root}")?;
            out.flush()
        };
        match commit_forever(&store, self.from.as_deref(), self.seed, ready, ack) {
            Err(e) => e,
            Ok(never) => match never {},
        }
    }
}

/// Resumes from `start` (`None`: the empty root) and commits batches from a generator seeded
/// with `seed`, calling `ack` with each new root right after its commit returned, until
/// something fails. `ready` is called once the store is open and the first commit is about to
/// start, so the parent can time its kill from there.
///
/// # Errors
/// [`CrashError::Commit`] when the trie or the store fails, [`CrashError::Ack`] when `ready`
/// or `ack` does.
pub(crate) fn commit_forever<S: Store>(
    store: &S,
    start: Option<&str>,
    seed: u64,
    mut ready: impl FnMut() -> io::Result<()>,
    mut ack: impl FnMut(&str) -> io::Result<()>,
) -> Result<Infallible, CrashError> {
    let mut trie = MerkleTrie::new(store).map_err(CrashError::Commit)?;
    if let Some(root) = start {
        trie.set_root(root).map_err(CrashError::Commit)?;
    }
    let live = trie
        .leaves("")
        .map_err(CrashError::Commit)?
        .into_iter()
        .map(|(address, _)| address);
    let mut batches = BatchGen::new(seed, live);
    ready().map_err(CrashError::Ack)?;
    loop {
        let batch = batches.next_batch();
        let root = trie.commit(&batch).map_err(CrashError::Commit)?;
        ack(&root).map_err(CrashError::Ack)?;
        trie.set_root(&root).map_err(CrashError::Commit)?;
    }
}
