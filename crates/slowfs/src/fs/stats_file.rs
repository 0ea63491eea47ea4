//! The virtual `/.slowfs-stats` file: its entry, its attributes, and one frozen view of the
//! counters per open. Its requests are answered here (the other modules only refuse to change,
//! rename or remove it) and none is counted or delayed, so reading the counters neither changes
//! them nor waits for the profile's delays.

use std::ffi::OsStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, FopenFlags, Generation, INodeNo, OpenFlags,
    ReplyAttr, ReplyData, ReplyEmpty, ReplyEntry, ReplyOpen,
};

use crate::inodes::{ROOT_INO, STATS_INO};

use super::sys::lock;
use super::{SlowFs, STATS_FILE};

impl SlowFs {
    /// Whether `name` in directory `parent` is the stats file.
    pub(super) fn is_stats(parent: INodeNo, name: &OsStr) -> bool {
        parent.0 == ROOT_INO && name == STATS_FILE
    }

    fn stats_json(&self) -> Vec<u8> {
        self.stats.snapshot().to_json().into_bytes()
    }

    fn stats_attr(&self) -> FileAttr {
        let now = SystemTime::now();
        FileAttr {
            ino: INodeNo(STATS_INO),
            size: self.stats_json().len() as u64,
            blocks: 0,
            atime: now,
            mtime: now,
            ctime: now,
            crtime: now,
            kind: FileType::RegularFile,
            perm: 0o444,
            nlink: 1,
            uid: 0,
            gid: 0,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }
}

/// `lookup` of the stats file: never cached, so its size is always current.
pub(super) fn lookup(this: &SlowFs, reply: ReplyEntry) {
    reply.entry(&Duration::ZERO, &this.stats_attr(), Generation(0));
}

/// `getattr` of the stats file, never cached.
pub(super) fn getattr(this: &SlowFs, reply: ReplyAttr) {
    reply.attr(&Duration::ZERO, &this.stats_attr());
}

/// `open` of the stats file: read-only; the handle keeps the counters as they are now.
pub(super) fn open(this: &SlowFs, flags: OpenFlags, reply: ReplyOpen) {
    if flags.0 & libc::O_ACCMODE != libc::O_RDONLY {
        reply.error(Errno::EACCES);
        return;
    }
    let fh = this.new_fh();
    lock(&this.stats_views).insert(fh, Arc::new(this.stats_json()));
    // Direct I/O for this handle only: every open shows fresh counters, never a cached
    // page, whatever size getattr reported.
    reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
}

/// `read` of the stats file: a slice of the view taken at `open`.
pub(super) fn read(this: &SlowFs, fh: FileHandle, offset: u64, size: u32, reply: ReplyData) {
    let view = lock(&this.stats_views).get(&fh.0).cloned();
    match view {
        Some(view) => {
            let start = (offset as usize).min(view.len());
            let end = start.saturating_add(size as usize).min(view.len());
            reply.data(&view[start..end]);
        }
        None => reply.error(Errno::EBADF),
    }
}

/// `release` of the stats file: drops the handle's view.
pub(super) fn release(this: &SlowFs, fh: FileHandle, reply: ReplyEmpty) {
    lock(&this.stats_views).remove(&fh.0);
    reply.ok();
}

/// `access` of the stats file: readable, never writable or executable.
pub(super) fn access(mask: AccessFlags, reply: ReplyEmpty) {
    if mask.contains(AccessFlags::W_OK) || mask.contains(AccessFlags::X_OK) {
        reply.error(Errno::EACCES);
    } else {
        reply.ok();
    }
}
