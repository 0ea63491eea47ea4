//! The FUSE filesystem: passthrough to the backing directory, with a delay and a count per
//! request.
//!
//! Every answered request is counted in [`Stats`] and delayed by its class's delay (the real
//! operation runs first, then the worker sleeps, then replies), errors included: a failed
//! lookup is a round trip too. The virtual `/.slowfs-stats` file is neither counted nor
//! delayed.
//!
//! Caching, as an NFS client would: entries and attributes are cached by the kernel for
//! [`TTL`]; file data stays in the page cache across opens (`FOPEN_KEEP_CACHE`), so reads are
//! page-cache misses. Writes are write-through (no FUSE write-back cache): each `write(2)`
//! reaches slowfs. Shared writable `mmap` works (pages written back arrive as writes).
//! POSIX and BSD locks are left to the kernel (local to this machine).
//!
//! [`SlowFs`], its handle tables and the helpers every request uses live here. `callbacks` is
//! fuser's trait, routing each request to the module that answers it: `namespace` (names in
//! directories), `attrs` (inode and filesystem attributes), `files` (open files and their data),
//! `dirs` (open directories), `stats_file` (the virtual stats file) and `control_file` (the
//! power-loss mode's control file); `sys` holds the libc
//! side. The answering modules use this module, `sys` and `stats_file`, never one another; this
//! module uses only `sys`.

mod attrs;
mod callbacks;
mod control_file;
mod dirs;
mod files;
mod namespace;
mod stats_file;
mod sys;

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fuser::{Errno, FileAttr, FileHandle, FileType, INodeNo};

/// Who asked for a node to be created: its new owner.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Owner {
    uid: u32,
    gid: u32,
}

impl Owner {
    /// The requesting process's user and group.
    fn of(req: &fuser::Request) -> Owner {
        Owner {
            uid: req.uid(),
            gid: req.gid(),
        }
    }
}

use crate::inodes::InodeTable;
use crate::model::{FaultPlan, LogOp, OpLog};
use crate::op::Op;
use crate::power::PowerLoss;
use crate::stats::Stats;

use sys::{attr_of, errno, lock, FsResult};

/// How long the kernel may cache entries and attributes.
pub const TTL: Duration = Duration::from_secs(1);

pub use crate::snapshot::STATS_FILE;

pub use crate::CONTROL_FILE;

/// One directory entry kept from `opendir` for `readdir`.
#[derive(Debug)]
struct DirEntry {
    ino: u64,
    kind: FileType,
    name: OsString,
}

/// An open directory: its entries as read at `opendir`, and the directory itself for `fsyncdir`.
#[derive(Debug)]
struct DirHandle {
    dir: File,
    entries: Vec<DirEntry>,
}

/// The passthrough filesystem over one backing directory.
#[derive(Debug)]
pub struct SlowFs {
    root: PathBuf,
    stats: Arc<Stats>,
    inodes: Mutex<InodeTable>,
    files: Mutex<HashMap<u64, Arc<File>>>,
    dirs: Mutex<HashMap<u64, Arc<DirHandle>>>,
    stats_views: Mutex<HashMap<u64, Arc<Vec<u8>>>>,
    next_fh: AtomicU64,
    power: Option<Arc<PowerLoss>>,
    oplog: Option<Arc<OpLog>>,
    faults: Arc<FaultPlan>,
}

impl SlowFs {
    /// A filesystem passing through to `root` (an existing directory, ideally canonical),
    /// counting into `stats` and delaying by its latency.
    pub fn new(root: PathBuf, stats: Arc<Stats>) -> SlowFs {
        SlowFs {
            root,
            stats,
            inodes: Mutex::new(InodeTable::new()),
            files: Mutex::new(HashMap::new()),
            dirs: Mutex::new(HashMap::new()),
            stats_views: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            power: None,
            oplog: None,
            faults: Arc::new(FaultPlan::default()),
        }
    }

    /// Records every change and sync in `log` ([`crate::model::oplog`]).
    pub fn with_op_log(mut self, log: Arc<OpLog>) -> SlowFs {
        self.oplog = Some(log);
        self
    }

    /// Injects the faults of `plan` ([`crate::model::faults`]).
    pub fn with_faults(mut self, plan: Arc<FaultPlan>) -> SlowFs {
        self.faults = plan;
        self
    }

    /// Runs `apply` and, with an op log, logs what `entries` says it did, in one step under
    /// the log's lock (so the log's order is the backing directory's). Without a log only
    /// `apply` runs.
    fn logged<'d, T>(
        &self,
        apply: impl FnOnce() -> FsResult<T>,
        entries: impl FnOnce(&T) -> Vec<(LogOp, Option<&'d [u8]>)>,
    ) -> FsResult<T> {
        match &self.oplog {
            None => apply(),
            Some(log) => log
                .logged(
                    || apply().map_err(|e| std::io::Error::from_raw_os_error(e.code())),
                    entries,
                )
                .map_err(errno),
        }
    }

    /// Logs an injected fault (with an op log) and returns its errno.
    fn injected(&self, call: &str, rel: &Path, code: i32) -> Errno {
        if let Some(log) = &self.oplog {
            let path = log_path(rel);
            let op = if call == "fsync" {
                LogOp::FsyncFailed { path }
            } else {
                LogOp::Fault {
                    call: call.to_string(),
                    path,
                    errno: code,
                }
            };
            let _ = log.note(op);
        }
        Errno::from(std::io::Error::from_raw_os_error(code))
    }

    /// Power-loss mode (see [`crate::power`]): unsynced changes are undone by a cut, requested
    /// by writing `cut` to `/.slowfs-control`.
    pub fn with_power_loss(mut self, power: Arc<PowerLoss>) -> SlowFs {
        self.power = Some(power);
        self
    }

    /// `EIO` once power is cut: nothing changes any more.
    fn alive(&self) -> FsResult<()> {
        match &self.power {
            Some(power) => power.check_alive().map_err(errno),
            None => Ok(()),
        }
    }

    /// Counts one request and sleeps for its class's delay.
    fn account(&self, op: Op, bytes: u64) {
        self.stats.record(op, bytes);
        let delay = self.stats.latency().delay(op.class());
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
    }

    fn new_fh(&self) -> u64 {
        self.next_fh.fetch_add(1, Ordering::Relaxed)
    }

    fn abs(&self, rel: &Path) -> PathBuf {
        if rel.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    /// The relative path of `ino`, `ENOENT` if unknown or unlinked.
    fn rel(&self, ino: INodeNo) -> FsResult<PathBuf> {
        lock(&self.inodes).path(ino.0).ok_or(Errno::ENOENT)
    }

    /// The relative path of `name` in directory `parent`.
    fn child(&self, parent: INodeNo, name: &OsStr) -> FsResult<PathBuf> {
        // Every name operation goes through here: after a power cut none of them runs.
        self.alive()?;
        Ok(self.rel(parent)?.join(name))
    }

    /// Gives a node just created for `owner` to it, as a kernel filesystem would. Only a daemon
    /// running as root can (and needs to): it creates every node as itself, and the mount is then
    /// shared with other users (`allow_other`, see [`crate::mount`]), such as a PostgreSQL server
    /// running as `nobody`.
    fn give_to(&self, rel: &Path, owner: Owner) -> FsResult<()> {
        if !sys::running_as_root() || owner.uid == 0 {
            return Ok(());
        }
        sys::lchown(&self.abs(rel), owner.uid, owner.gid)
    }

    /// Stats the new or looked-up `rel` and counts a kernel lookup of it.
    fn entry(&self, rel: &Path) -> FsResult<FileAttr> {
        let meta = fs::symlink_metadata(self.abs(rel)).map_err(errno)?;
        let ino = lock(&self.inodes).lookup(rel);
        Ok(attr_of(ino, &meta))
    }

    fn file(&self, fh: FileHandle) -> FsResult<Arc<File>> {
        lock(&self.files).get(&fh.0).cloned().ok_or(Errno::EBADF)
    }
}

/// A relative path as the op log spells it.
fn log_path(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}
