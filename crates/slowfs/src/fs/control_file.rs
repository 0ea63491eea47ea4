//! The virtual `/.slowfs-control` file of power-loss mode: writing `cut` to it cuts power
//! ([`crate::power::PowerLoss::cut`]); the write returns once every unsynced change has been
//! undone, so the writer knows the cut is complete. It exists only in power-loss mode and none
//! of its requests is counted or delayed.

use std::ffi::OsStr;
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, FopenFlags, Generation, INodeNo, ReplyAttr, ReplyEntry,
    ReplyOpen, ReplyWrite,
};

use crate::inodes::{CONTROL_INO, ROOT_INO};

use super::{SlowFs, CONTROL_FILE};

impl SlowFs {
    /// Whether `name` in `parent` is the control file (and this mount is in power-loss mode).
    pub(super) fn is_control(&self, parent: INodeNo, name: &OsStr) -> bool {
        self.power.is_some() && parent.0 == ROOT_INO && name == CONTROL_FILE
    }
}

fn attr() -> FileAttr {
    let now = SystemTime::now();
    FileAttr {
        ino: INodeNo(CONTROL_INO),
        size: 0,
        blocks: 0,
        atime: now,
        mtime: now,
        ctime: now,
        crtime: now,
        kind: FileType::RegularFile,
        perm: 0o200,
        nlink: 1,
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

/// `lookup` of the control file, never cached.
pub(super) fn lookup(reply: ReplyEntry) {
    reply.entry(&Duration::ZERO, &attr(), Generation(0));
}

/// `getattr` and `setattr` (a truncation by `>` in a shell) of the control file.
pub(super) fn getattr(reply: ReplyAttr) {
    reply.attr(&Duration::ZERO, &attr());
}

/// `open` of the control file: direct I/O, so each write reaches slowfs as it is made.
pub(super) fn open(this: &SlowFs, reply: ReplyOpen) {
    reply.opened(FileHandle(this.new_fh()), FopenFlags::FOPEN_DIRECT_IO);
}

/// `write` to the control file: `cut` (surrounding whitespace ignored) cuts power; `mark
/// LABEL` puts a mark in the op log (for crash-test, an acknowledged commit), if there is one.
pub(super) fn write(this: &SlowFs, data: &[u8], reply: ReplyWrite) {
    let Some(power) = &this.power else {
        reply.error(Errno::ENOENT);
        return;
    };
    match std::str::from_utf8(data).map(str::trim) {
        Ok("cut") => match power.cut() {
            Ok(_) => reply.written(data.len() as u32),
            Err(e) => reply.error(Errno::from(e)),
        },
        Ok(line) if line.starts_with("mark ") => {
            let label = line["mark ".len()..].trim().to_string();
            let noted = match &this.oplog {
                Some(log) => log.note(crate::model::LogOp::Mark { label }),
                None => Ok(()),
            };
            match noted {
                Ok(()) => reply.written(data.len() as u32),
                Err(e) => reply.error(Errno::from(e)),
            }
        }
        _ => reply.error(Errno::EINVAL),
    }
}
