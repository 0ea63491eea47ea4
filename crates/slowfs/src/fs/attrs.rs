//! Attributes: of an inode (getattr, setattr, access), of the filesystem (statfs), and the
//! extended ones, which slowfs does not pass through. Each is one metadata round trip, counted
//! and delayed as such.

use std::fs;

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, INodeNo, ReplyAttr, ReplyEmpty, ReplyStatfs,
    ReplyXattr, TimeOrNow,
};

use crate::inodes::{CONTROL_INO, STATS_INO};
use crate::model::LogOp;
use crate::op::Op;

use super::sys::{attr_of, check, cpath, errno, reply_empty, timespec, FsResult};
use super::{control_file, stats_file};
use super::{log_path, SlowFs, TTL};

pub(super) fn getattr(this: &SlowFs, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
    if ino.0 == STATS_INO {
        stats_file::getattr(this, reply);
        return;
    }
    if ino.0 == CONTROL_INO {
        control_file::getattr(reply);
        return;
    }
    let result = this.do_getattr(ino, fh);
    this.account(Op::Getattr, 0);
    match result {
        Ok(attr) => reply.attr(&TTL, &attr),
        Err(e) => reply.error(e),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn setattr(
    this: &SlowFs,
    ino: INodeNo,
    mode: Option<u32>,
    uid: Option<u32>,
    gid: Option<u32>,
    size: Option<u64>,
    atime: Option<TimeOrNow>,
    mtime: Option<TimeOrNow>,
    fh: Option<FileHandle>,
    reply: ReplyAttr,
) {
    if ino.0 == STATS_INO {
        reply.error(Errno::EACCES);
        return;
    }
    if ino.0 == CONTROL_INO {
        control_file::getattr(reply);
        return;
    }
    let result = this.do_setattr(ino, mode, uid, gid, size, atime, mtime, fh);
    this.account(Op::Setattr, 0);
    match result {
        Ok(attr) => reply.attr(&TTL, &attr),
        Err(e) => reply.error(e),
    }
}

pub(super) fn access(this: &SlowFs, ino: INodeNo, mask: AccessFlags, reply: ReplyEmpty) {
    if ino.0 == STATS_INO {
        stats_file::access(mask, reply);
        return;
    }
    if ino.0 == CONTROL_INO {
        reply.ok();
        return;
    }
    let result = this.rel(ino).and_then(|rel| {
        let c = cpath(&this.abs(&rel))?;
        // SAFETY: `c` is a valid NUL-terminated path.
        check(unsafe { libc::access(c.as_ptr(), mask.bits()) })
    });
    this.account(Op::Access, 0);
    reply_empty(reply, result);
}

pub(super) fn statfs(this: &SlowFs, reply: ReplyStatfs) {
    let result = this.do_statfs();
    this.account(Op::Statfs, 0);
    match result {
        Ok(st) => reply.statfs(
            st.f_blocks,
            st.f_bfree,
            st.f_bavail,
            st.f_files,
            st.f_ffree,
            st.f_bsize as u32,
            st.f_namemax as u32,
            st.f_frsize as u32,
        ),
        Err(e) => reply.error(e),
    }
}

pub(super) fn getxattr(this: &SlowFs, reply: ReplyXattr) {
    // Extended attributes are not passed through; ENOSYS makes the kernel stop asking.
    this.account(Op::Getxattr, 0);
    reply.error(Errno::ENOSYS);
}

pub(super) fn setxattr(this: &SlowFs, reply: ReplyEmpty) {
    this.account(Op::Setxattr, 0);
    reply.error(Errno::ENOSYS);
}

pub(super) fn listxattr(this: &SlowFs, reply: ReplyXattr) {
    this.account(Op::Listxattr, 0);
    reply.error(Errno::ENOSYS);
}

pub(super) fn removexattr(this: &SlowFs, reply: ReplyEmpty) {
    this.account(Op::Removexattr, 0);
    reply.error(Errno::ENOSYS);
}

impl SlowFs {
    fn do_getattr(&self, ino: INodeNo, fh: Option<FileHandle>) -> FsResult<FileAttr> {
        if let Some(fh) = fh {
            if let Ok(file) = self.file(fh) {
                return Ok(attr_of(ino.0, &file.metadata().map_err(errno)?));
            }
        }
        let meta = fs::symlink_metadata(self.abs(&self.rel(ino)?)).map_err(errno)?;
        Ok(attr_of(ino.0, &meta))
    }

    #[allow(clippy::too_many_arguments)]
    fn do_setattr(
        &self,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        fh: Option<FileHandle>,
    ) -> FsResult<FileAttr> {
        self.alive()?;
        let path = self.abs(&self.rel(ino)?);
        let c = cpath(&path)?;
        if let Some(mode) = mode {
            // SAFETY: `c` is a valid NUL-terminated path.
            check(unsafe { libc::chmod(c.as_ptr(), (mode & 0o7777) as libc::mode_t) })?;
        }
        if uid.is_some() || gid.is_some() {
            std::os::unix::fs::lchown(&path, uid, gid).map_err(errno)?;
        }
        if let Some(size) = size {
            let file = match fh.map(|fh| self.file(fh)) {
                Some(Ok(file)) => file,
                _ => std::sync::Arc::new(
                    fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .map_err(errno)?,
                ),
            };
            let rel = self.rel(ino)?;
            self.logged(
                || match &self.power {
                    None => file.set_len(size).map_err(errno),
                    Some(power) => power
                        .truncate(&file, size, || file.set_len(size))
                        .map_err(errno),
                },
                |_| {
                    vec![(
                        LogOp::SetLen {
                            path: log_path(&rel),
                            len: size,
                        },
                        None,
                    )]
                },
            )?;
        }
        if atime.is_some() || mtime.is_some() {
            let times = [timespec(atime), timespec(mtime)];
            // SAFETY: `c` is a valid path and `times` two valid timespecs.
            check(unsafe {
                libc::utimensat(
                    libc::AT_FDCWD,
                    c.as_ptr(),
                    times.as_ptr(),
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            })?;
        }
        let meta = fs::symlink_metadata(&path).map_err(errno)?;
        Ok(attr_of(ino.0, &meta))
    }

    fn do_statfs(&self) -> FsResult<libc::statvfs> {
        let c = cpath(&self.root)?;
        // SAFETY: statvfs is plain old data; the kernel fills it.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `c` is a valid path and `st` a valid out-pointer.
        check(unsafe { libc::statvfs(c.as_ptr(), &mut st) })?;
        Ok(st)
    }
}
