//! The kernel's requests, answered: each one is counted and delayed by its class, then passed
//! through to the backing directory with [`SlowFs`]'s operations.

use std::ffi::OsStr;
use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    AccessFlags, Errno, FileHandle, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, ReplyXattr, Request, TimeOrNow, WriteFlags,
};

use crate::inodes::STATS_INO;
use crate::op::Op;

use super::sys::{check, cpath, errno, lock, open_options, reply_empty, sync};
use super::{SlowFs, TTL};

impl Filesystem for SlowFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if Self::is_stats(parent, name) {
            reply.entry(&Duration::ZERO, &self.stats_attr(), Generation(0));
            return;
        }
        let result = self.child(parent, name).and_then(|rel| self.entry(&rel));
        self.account(Op::Lookup, 0);
        match result {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        lock(&self.inodes).forget(ino.0, nlookup);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
        if ino.0 == STATS_INO {
            reply.attr(&Duration::ZERO, &self.stats_attr());
            return;
        }
        let result = self.do_getattr(ino, fh);
        self.account(Op::Getattr, 0);
        match result {
            Ok(attr) => reply.attr(&TTL, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        if ino.0 == STATS_INO {
            reply.error(Errno::EACCES);
            return;
        }
        let result = self.do_setattr(ino, mode, uid, gid, size, atime, mtime, fh);
        self.account(Op::Setattr, 0);
        match result {
            Ok(attr) => reply.attr(&TTL, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        let result = self
            .rel(ino)
            .and_then(|rel| fs::read_link(self.abs(&rel)).map_err(errno));
        self.account(Op::Readlink, 0);
        match result {
            Ok(target) => reply.data(target.as_os_str().as_bytes()),
            Err(e) => reply.error(e),
        }
    }

    fn mknod(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        rdev: u32,
        reply: ReplyEntry,
    ) {
        let result = self.child(parent, name).and_then(|rel| {
            self.do_mknod(&rel, mode & !umask, rdev)?;
            self.entry(&rel)
        });
        self.account(Op::Mknod, 0);
        match result {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        let result = self.child(parent, name).and_then(|rel| {
            fs::DirBuilder::new()
                .mode(mode & !umask & 0o7777)
                .create(self.abs(&rel))
                .map_err(errno)?;
            self.entry(&rel)
        });
        self.account(Op::Mkdir, 0);
        match result {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        if Self::is_stats(parent, name) {
            reply.error(Errno::EACCES);
            return;
        }
        let result = self.do_remove(parent, name, false);
        self.account(Op::Unlink, 0);
        reply_empty(reply, result);
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let result = self.do_remove(parent, name, true);
        self.account(Op::Rmdir, 0);
        reply_empty(reply, result);
    }

    fn symlink(
        &self,
        _req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        let result = self.child(parent, link_name).and_then(|rel| {
            std::os::unix::fs::symlink(target, self.abs(&rel)).map_err(errno)?;
            self.entry(&rel)
        });
        self.account(Op::Symlink, 0);
        match result {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        if Self::is_stats(parent, name) || Self::is_stats(newparent, newname) {
            reply.error(Errno::EACCES);
            return;
        }
        let result = self.do_rename(parent, name, newparent, newname, flags);
        self.account(Op::Rename, 0);
        reply_empty(reply, result);
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        let result = self.rel(ino).and_then(|src| {
            let rel = self.child(newparent, newname)?;
            fs::hard_link(self.abs(&src), self.abs(&rel)).map_err(errno)?;
            self.entry(&rel)
        });
        self.account(Op::Link, 0);
        match result {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if ino.0 == STATS_INO {
            if flags.0 & libc::O_ACCMODE != libc::O_RDONLY {
                reply.error(Errno::EACCES);
                return;
            }
            let fh = self.new_fh();
            lock(&self.stats_views).insert(fh, Arc::new(self.stats_json()));
            // Direct I/O for this handle only: every open shows fresh counters, never a cached
            // page, whatever size getattr reported.
            reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
            return;
        }
        let result = self.rel(ino).and_then(|rel| {
            let file = open_options(flags.0).open(self.abs(&rel)).map_err(errno)?;
            let fh = self.new_fh();
            lock(&self.files).insert(fh, Arc::new(file));
            Ok(fh)
        });
        self.account(Op::Open, 0);
        match result {
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::FOPEN_KEEP_CACHE),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if ino.0 == STATS_INO {
            let view = lock(&self.stats_views).get(&fh.0).cloned();
            match view {
                Some(view) => {
                    let start = (offset as usize).min(view.len());
                    let end = start.saturating_add(size as usize).min(view.len());
                    reply.data(&view[start..end]);
                }
                None => reply.error(Errno::EBADF),
            }
            return;
        }
        let result = self.do_read(fh, offset, size);
        let bytes = result.as_ref().map_or(0, |b| b.len() as u64);
        self.account(Op::Read, bytes);
        match result {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let result = self
            .file(fh)
            .and_then(|file| file.write_all_at(data, offset).map_err(errno));
        let bytes = if result.is_ok() { data.len() as u64 } else { 0 };
        if bytes > 0 {
            self.stats.record_write_extent(ino.0, offset, bytes);
        }
        self.account(Op::Write, bytes);
        match result {
            Ok(()) => reply.written(data.len() as u32),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        if ino.0 != STATS_INO {
            // Nothing is buffered here (writes went straight to the backing file); the cost is
            // the round trip a network filesystem pays at close.
            self.account(Op::Flush, 0);
        }
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        if ino.0 == STATS_INO {
            lock(&self.stats_views).remove(&fh.0);
            reply.ok();
            return;
        }
        let file = lock(&self.files).remove(&fh.0);
        drop(file);
        self.account(Op::Release, 0);
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        let result = self.file(fh).and_then(|file| sync(&file, datasync));
        self.account(Op::Fsync, 0);
        reply_empty(reply, result);
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let result = self.do_opendir(ino);
        self.account(Op::Opendir, 0);
        match result {
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let handle = lock(&self.dirs).get(&fh.0).cloned();
        self.account(Op::Readdir, 0);
        let Some(handle) = handle else {
            reply.error(Errno::EBADF);
            return;
        };
        for (i, e) in handle.entries.iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(e.ino), i as u64 + 1, e.kind, &e.name) {
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        let handle = lock(&self.dirs).remove(&fh.0);
        drop(handle);
        self.account(Op::Releasedir, 0);
        reply.ok();
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        let handle = lock(&self.dirs).get(&fh.0).cloned();
        let result = match handle {
            Some(h) => sync(&h.dir, datasync),
            None => Err(Errno::EBADF),
        };
        self.account(Op::Fsyncdir, 0);
        reply_empty(reply, result);
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let result = self.do_statfs();
        self.account(Op::Statfs, 0);
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

    fn getxattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _name: &OsStr,
        _size: u32,
        reply: ReplyXattr,
    ) {
        // Extended attributes are not passed through; ENOSYS makes the kernel stop asking.
        self.account(Op::Getxattr, 0);
        reply.error(Errno::ENOSYS);
    }

    fn setxattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _name: &OsStr,
        _value: &[u8],
        _flags: i32,
        _position: u32,
        reply: ReplyEmpty,
    ) {
        self.account(Op::Setxattr, 0);
        reply.error(Errno::ENOSYS);
    }

    fn listxattr(&self, _req: &Request, _ino: INodeNo, _size: u32, reply: ReplyXattr) {
        self.account(Op::Listxattr, 0);
        reply.error(Errno::ENOSYS);
    }

    fn removexattr(&self, _req: &Request, _ino: INodeNo, _name: &OsStr, reply: ReplyEmpty) {
        self.account(Op::Removexattr, 0);
        reply.error(Errno::ENOSYS);
    }

    fn access(&self, _req: &Request, ino: INodeNo, mask: AccessFlags, reply: ReplyEmpty) {
        if ino.0 == STATS_INO {
            if mask.contains(AccessFlags::W_OK) || mask.contains(AccessFlags::X_OK) {
                reply.error(Errno::EACCES);
            } else {
                reply.ok();
            }
            return;
        }
        let result = self.rel(ino).and_then(|rel| {
            let c = cpath(&self.abs(&rel))?;
            // SAFETY: `c` is a valid NUL-terminated path.
            check(unsafe { libc::access(c.as_ptr(), mask.bits()) })
        });
        self.account(Op::Access, 0);
        reply_empty(reply, result);
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        if Self::is_stats(parent, name) {
            reply.error(Errno::EEXIST);
            return;
        }
        let result = self.do_create(parent, name, mode, umask, flags);
        self.account(Op::Create, 0);
        match result {
            Ok((attr, fh)) => reply.created(
                &TTL,
                &attr,
                Generation(0),
                FileHandle(fh),
                FopenFlags::FOPEN_KEEP_CACHE,
            ),
            Err(e) => reply.error(e),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        let result = self.file(fh).and_then(|file| {
            let offset = libc::off_t::try_from(offset).map_err(|_| Errno::EINVAL)?;
            let length = libc::off_t::try_from(length).map_err(|_| Errno::EINVAL)?;
            // SAFETY: the descriptor is open for the lifetime of `file`.
            check(unsafe { libc::fallocate(file.as_raw_fd(), mode, offset, length) })
        });
        self.account(Op::Fallocate, 0);
        reply_empty(reply, result);
    }
}
