//! [`NomtEngine`]: NOMT 1.0.5 (thrumdev's Nearly-Optimal Merkle Trie) as an [`Engine`], with its
//! own files in a directory the caller gives (feature `nomt`); [`ModelNomt`], its reference.
//!
//! NOMT is a binary Merkle trie over 256-bit key paths with path compression (a leaf sits as
//! high as its key's unique prefix allows), stored as 4 KiB pages of six trie levels each in a
//! hash table file, with the values in a b-tree of their own. It is not over a
//! [`triebench_kv::Store`]: it owns its storage (files `meta`, `ht` the hash table of pages,
//! `wal` its write-ahead log, `ln` and `bbn` the value b-tree's leaf and branch nodes, `.lock`),
//! so it runs on whatever filesystem holds the directory, not on a kv profile. Give it a
//! directory under the one under test (`TMPDIR`, `--dir`) and it measures that filesystem as
//! the kv profiles' files do.
//!
//! * Keys: a key path is the SHA-256 of the address's bytes (the hex decoded), as
//!   [`JmtEngine`](crate::JmtEngine) hashes them; nodes and values are hashed with SHA-256 too
//!   ([`Hasher`], NOMT's `Sha2Hasher`: sha2 is in the build already, BLAKE3 would add a crate).
//!   Values are stored as given; an empty value is a value, not absence.
//! * A batch is one NOMT session: its changes sorted by key path as NOMT requires (a later
//!   change to the same address wins, a delete of an address that holds nothing changes
//!   nothing: on an empty database such deletes are dropped before NOMT sees them, as NOMT
//!   1.0.5 panics on a commit that changes no stored value), finished (the new root computed)
//!   and committed. A commit returns once NOMT has fsynced its write-ahead log, the value
//!   b-tree's new pages and its meta page: the batch survives a crash (the hash table's pages,
//!   written after, are recovered from the log). An empty batch commits nothing and gives the
//!   latest root again.
//! * Versions: NOMT keeps only its latest state (its rollback log is not enabled here). [`get`],
//!   [`prove`] and [`prune_before`] take the latest root only; any other root is
//!   [`EngineError::UnknownRoot`]. Pruning the latest root is a no-op: nothing older is kept.
//! * Reopening: [`NomtEngine::open`] on a directory NOMT has written opens its latest committed
//!   state, so reads of the latest root can start cold.
//! * Proofs: NOMT's path proofs (`proof`: the sibling of every node on the key's
//!   path), borsh-encoded, for a value or its absence.
//! * Environment: on Linux NOMT does its I/O through io_uring and needs a 6.x kernel that
//!   allows it; [`NomtEngine::open`] checks first and says so
//!   ([`EngineError::Unavailable`]) rather than let NOMT's I/O threads panic. Other NOMT panics
//!   (its internal invariants, I/O submission errors) are caught at this interface and become
//!   [`EngineError::Library`]; after a failed commit (an error or a panic) the engine refuses
//!   further work until the directory is reopened (NOMT may hold a root in memory that its
//!   files do not). Its test-only panic-on-sync modes are never set.
//! * A full hash table: NOMT 1.0.5 does not fail but spins forever (its bucket probe finds no
//!   empty bucket) when a commit fills its hash table. A commit is refused, as an error, once
//!   the table is 90 % full (NOMT's own limit for good speed); a single batch that takes it
//!   from below 90 % to full would still hang, so size the table for the state
//!   ([`NomtOptions::for_leaves`]: half full at that many leaves). The bucket count must be a
//!   power of two: NOMT's triangular probe reaches every bucket only then (with 70 buckets
//!   and 65 pages a commit was seen to spin forever).
//!
//! Files: `key` (key paths, hashes), `options` ([`NomtOptions`]: the hash table's size, the
//! caches), `proof` (their wire form and check), `model` ([`ModelNomt`]).
//!
//! [`get`]: Engine::get
//! [`prove`]: Engine::prove
//! [`prune_before`]: Engine::prune_before

mod key;
mod model;
mod options;
mod proof;

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use ::nomt::trie::KeyPath;
use ::nomt::{KeyReadWrite, Nomt, SessionParams};
use triebench_merkle::StateChange;

use crate::{Engine, EngineError, Root};

pub use key::Hasher;
pub use model::ModelNomt;
pub use options::{NomtOptions, NOMT_PAGE_BYTES};

/// The engine's name, as reports and errors show it.
const NAME: &str = "nomt";

/// The files NOMT keeps in its directory (besides the empty `.lock`): `meta`, `ht` (the hash
/// table of Merkle pages, preallocated at [`NomtOptions::hash_table_bytes`] by default), `wal`,
/// `ln` and `bbn` (the value b-tree's leaf and branch nodes). Their blocks allocated are the
/// engine's size on disk: `ln` and `bbn` start at 32 MiB each but sparse, so their lengths
/// overstate it (at 1,000 leaves of 100 bytes, 176 KiB and 4 KiB allocated).
pub const NOMT_FILES: &[&str] = &["meta", "ht", "wal", "ln", "bbn"];

/// How full NOMT's hash table of Merkle pages is: its pages in use (one per bucket) and the
/// buckets it has. NOMT's own count; its pages are its nodes' storage (126 trie nodes a page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashTablePages {
    /// Buckets holding a page.
    pub occupied: u64,
    /// Buckets in the table.
    pub capacity: u64,
}

/// NOMT on its own files in one directory. One engine per directory (NOMT locks it).
pub struct NomtEngine {
    nomt: Nomt<Hasher>,
    dir: PathBuf,
    /// Why the last commit failed, if one did: NOMT may then hold a root in memory that its
    /// files do not, so the engine refuses further work until the directory is reopened.
    failed: Option<String>,
}

impl fmt::Debug for NomtEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NomtEngine")
            .field("dir", &self.dir)
            .field("root", &self.root())
            .finish_non_exhaustive()
    }
}

/// NOMT's error (an `anyhow` chain) as an [`EngineError`].
fn library(error: anyhow::Error) -> EngineError {
    EngineError::Library {
        engine: NAME,
        message: format!("{error:#}"),
    }
}

/// Runs `f`, a call into NOMT, turning a panic in it into [`EngineError::Library`]: NOMT
/// panics on some failures of its environment (an I/O submission error) where it should err.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, EngineError>) -> Result<T, EngineError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(EngineError::Library {
            engine: NAME,
            message: format!("NOMT panicked during {what}: {message}"),
        })
    })
}

/// Whether NOMT can do its I/O here: on Linux, whether io_uring with the flags NOMT uses is
/// allowed (asked once per process); elsewhere NOMT uses I/O threads and needs nothing.
fn io_ready() -> Result<(), EngineError> {
    #[cfg(target_os = "linux")]
    {
        use std::sync::OnceLock;
        static IO_URING: OnceLock<Result<(), &'static str>> = OnceLock::new();
        let ready = IO_URING.get_or_init(|| match ::nomt::check_iou_permissions() {
            ::nomt::IoUringPermission::Allowed => Ok(()),
            ::nomt::IoUringPermission::Denied => Err(
                "NOMT needs io_uring, which this system denies (kernel.io_uring_disabled, a \
                 seccomp filter or a container's policy)",
            ),
            ::nomt::IoUringPermission::NotSupported => Err(
                "NOMT needs io_uring with IORING_SETUP_SINGLE_ISSUER, which this kernel lacks \
                 (Linux 6.0 or newer)",
            ),
        });
        ready.map_err(|reason| EngineError::Unavailable {
            engine: NAME,
            reason: reason.to_string(),
        })
    }
    #[cfg(not(target_os = "linux"))]
    Ok(())
}

impl NomtEngine {
    /// NOMT in `dir`: a new, empty database if `dir` does not exist (it is created; its parent
    /// must exist) or is empty, else the database NOMT left there, at its latest committed
    /// root. `options` size a new database (an existing one keeps its hash table).
    ///
    /// Errors: [`EngineError::Unavailable`] where NOMT cannot do its I/O (no io_uring);
    /// [`EngineError::Library`] for a directory that cannot be created or opened, one that
    /// holds something else, or one another engine holds.
    pub fn open(dir: &Path, options: &NomtOptions) -> Result<Self, EngineError> {
        let options = options.to_nomt(dir)?;
        io_ready()?;
        let cannot = |e: std::io::Error| EngineError::Library {
            engine: NAME,
            message: format!("cannot use the directory {}: {e}", dir.display()),
        };
        // NOMT would create every missing ancestor; a missing parent is more likely a mistake.
        if !dir.exists() {
            std::fs::create_dir(dir).map_err(cannot)?;
        }
        if !dir.is_dir() {
            return Err(cannot(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        let nomt = guarded("open", || {
            Nomt::open(options).map_err(|e| EngineError::Library {
                engine: NAME,
                message: format!("cannot open a database in {}: {e:#}", dir.display()),
            })
        })?;
        Ok(NomtEngine {
            nomt,
            dir: dir.to_path_buf(),
            failed: None,
        })
    }

    /// The directory NOMT's files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How full NOMT's hash table of Merkle pages is.
    pub fn hash_table_pages(&self) -> HashTablePages {
        let used = self.nomt.hash_table_utilization();
        HashTablePages {
            occupied: used.occupied as u64,
            capacity: used.capacity as u64,
        }
    }

    /// Whether `root` is the latest root, the only one NOMT keeps; [`EngineError::UnknownRoot`]
    /// if not.
    fn latest(&self, root: &Root) -> Result<(), EngineError> {
        if *root == self.root() {
            Ok(())
        } else {
            Err(EngineError::UnknownRoot {
                engine: NAME,
                root: root.to_string(),
            })
        }
    }

    /// An error if an earlier commit failed.
    fn usable(&self) -> Result<(), EngineError> {
        match &self.failed {
            None if !self.nomt.is_poisoned() => Ok(()),
            failed => Err(EngineError::Library {
                engine: NAME,
                message: format!(
                    "an earlier commit failed ({}): reopen the directory",
                    failed.as_deref().unwrap_or("NOMT is poisoned")
                ),
            }),
        }
    }

    /// A read-only session on the latest state.
    fn session(&self) -> ::nomt::Session<Hasher> {
        self.nomt.begin_session(SessionParams::default())
    }
}

impl Engine for NomtEngine {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        Root(self.nomt.root().into_inner().to_vec())
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        // Sorted by key path, each key once, the later change winning.
        let mut writes: BTreeMap<KeyPath, Option<Vec<u8>>> = BTreeMap::new();
        for change in batch {
            match change {
                StateChange::Set { address, value } => {
                    writes.insert(key::key_path(address)?, Some(value.clone()));
                }
                StateChange::Delete { address } => {
                    writes.insert(key::key_path(address)?, None);
                }
            }
        }
        if self.nomt.is_empty() {
            // Every delete is of an absent key, and NOMT 1.0.5 panics on a commit that changes
            // no value b-tree leaf (`filter_leaves_changeset` subtracts 1 from an empty
            // changeset's length), as a batch of such deletes on an empty database does.
            writes.retain(|_, value| value.is_some());
        }
        if writes.is_empty() {
            return Ok(self.root());
        }
        self.usable()?;
        let pages = self.hash_table_pages();
        if pages.occupied * 10 >= pages.capacity * 9 {
            return Err(EngineError::Library {
                engine: NAME,
                message: format!(
                    "the hash table holds {} pages in {} buckets (90 % or more): NOMT would \
                     hang as it fills; create the directory with more buckets \
                     (NomtOptions::for_leaves)",
                    pages.occupied, pages.capacity
                ),
            });
        }
        let nomt = &self.nomt;
        let committed = guarded("a commit", || {
            let session = nomt.begin_session(SessionParams::default());
            let actuals = writes
                .into_iter()
                .map(|(key, value)| (key, KeyReadWrite::Write(value)))
                .collect();
            let finished = session.finish(actuals).map_err(library)?;
            let root = finished.root();
            finished.commit(nomt).map_err(library)?;
            Ok(root)
        });
        match committed {
            Ok(root) => Ok(Root(root.into_inner().to_vec())),
            Err(e) => {
                self.failed = Some(e.to_string());
                Err(e)
            }
        }
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = key::key_path(address)?;
        self.usable()?;
        self.latest(root)?;
        guarded("a read", || self.session().read(key).map_err(library))
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        self.latest(root)
    }

    /// NOMT keeps its latest version only (its rollback log is not enabled here).
    fn keeps_versions(&self) -> bool {
        false
    }

    fn prove(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let key = key::key_path(address)?;
        self.usable()?;
        self.latest(root)?;
        let path = guarded("a proof", || self.session().prove(key).map_err(library))?;
        proof::encode(&path).map(Some)
    }

    fn verify(
        &self,
        root: &Root,
        address: &str,
        value: Option<&[u8]>,
        proof: &[u8],
    ) -> Result<(), EngineError> {
        proof::verify(root, address, value, proof)
    }
}
