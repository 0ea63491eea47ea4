//! Open files: open and create, the data path (read, write, fallocate) and its durability
//! (flush, fsync), and release. A handle is the backing file kept open, so reads and writes reach
//! it without a path lookup; the stats file's handles are answered by `stats_file`.

use std::ffi::OsStr;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::sync::Arc;

use fuser::{
    Errno, FileAttr, FileHandle, FopenFlags, Generation, INodeNo, OpenFlags, ReplyCreate,
    ReplyData, ReplyEmpty, ReplyOpen, ReplyWrite,
};

use crate::inodes::{CONTROL_INO, STATS_INO};
use crate::model::LogOp;
use crate::op::Op;
use crate::power::PowerLoss;

use super::sys::{attr_of, check, errno, lock, open_options, reply_empty, sync, FsResult};
use super::{control_file, stats_file};
use super::{log_path, Owner, SlowFs, TTL};

pub(super) fn open(this: &SlowFs, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
    if ino.0 == STATS_INO {
        stats_file::open(this, flags, reply);
        return;
    }
    if ino.0 == CONTROL_INO {
        control_file::open(this, reply);
        return;
    }
    let result = this.rel(ino).and_then(|rel| {
        let truncates = flags.0 & libc::O_TRUNC != 0 && flags.0 & libc::O_ACCMODE != libc::O_RDONLY;
        let file = this.logged(
            || open_options(flags.0).open(this.abs(&rel)).map_err(errno),
            |_| match truncates {
                true => vec![(
                    LogOp::SetLen {
                        path: log_path(&rel),
                        len: 0,
                    },
                    None,
                )],
                false => Vec::new(),
            },
        )?;
        let fh = this.new_fh();
        lock(&this.files).insert(fh, Arc::new(file));
        Ok(fh)
    });
    this.account(Op::Open, 0);
    match result {
        Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::FOPEN_KEEP_CACHE),
        Err(e) => reply.error(e),
    }
}

pub(super) fn create(
    this: &SlowFs,
    owner: Owner,
    parent: INodeNo,
    name: &OsStr,
    mode: u32,
    flags: i32,
    reply: ReplyCreate,
) {
    if SlowFs::is_stats(parent, name) || this.is_control(parent, name) {
        reply.error(Errno::EEXIST);
        return;
    }
    let result = this.do_create(owner, parent, name, mode, flags);
    this.account(Op::Create, 0);
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

pub(super) fn read(
    this: &SlowFs,
    ino: INodeNo,
    fh: FileHandle,
    offset: u64,
    size: u32,
    reply: ReplyData,
) {
    if ino.0 == STATS_INO {
        stats_file::read(this, fh, offset, size, reply);
        return;
    }
    let result = this.do_read(fh, offset, size);
    let bytes = result.as_ref().map_or(0, |b| b.len() as u64);
    this.account(Op::Read, bytes);
    match result {
        Ok(data) => reply.data(&data),
        Err(e) => reply.error(e),
    }
}

pub(super) fn write(
    this: &SlowFs,
    ino: INodeNo,
    fh: FileHandle,
    offset: u64,
    data: &[u8],
    reply: ReplyWrite,
) {
    if ino.0 == CONTROL_INO {
        control_file::write(this, data, reply);
        return;
    }
    let result = this.do_write(ino, fh, offset, data);
    let bytes = if result.is_ok() { data.len() as u64 } else { 0 };
    if bytes > 0 {
        this.stats.record_write_extent(ino.0, offset, bytes);
    }
    this.account(Op::Write, bytes);
    match result {
        Ok(()) => reply.written(data.len() as u32),
        Err(e) => reply.error(e),
    }
}

/// The write itself: an injected fault, or the data through the power-loss model, logged.
fn write_through(
    this: &SlowFs,
    file: &std::fs::File,
    offset: u64,
    data: &[u8],
) -> super::sys::FsResult<()> {
    match &this.power {
        None => file.write_all_at(data, offset).map_err(errno),
        Some(power) if PowerLoss::is_sync_handle(file) => power
            .sync(file, || {
                file.write_all_at(data, offset)?;
                file.sync_data()
            })
            .map_err(errno),
        Some(power) => power
            .change(file, offset, data.len() as u64, || {
                file.write_all_at(data, offset)
            })
            .map_err(errno),
    }
}

pub(super) fn fallocate(
    this: &SlowFs,
    ino: INodeNo,
    fh: FileHandle,
    offset: u64,
    length: u64,
    mode: i32,
    reply: ReplyEmpty,
) {
    let rel = this.rel(ino);
    let result = this.file(fh).and_then(|file| {
        let start = libc::off_t::try_from(offset).map_err(|_| Errno::EINVAL)?;
        let len = libc::off_t::try_from(length).map_err(|_| Errno::EINVAL)?;
        // SAFETY: the descriptor is open for the lifetime of `file`.
        let apply = || check(unsafe { libc::fallocate(file.as_raw_fd(), mode, start, len) });
        let size_after = || {
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            match &rel {
                Ok(rel) => vec![(
                    LogOp::SetLen {
                        path: log_path(rel),
                        len,
                    },
                    None,
                )],
                Err(_) => Vec::new(),
            }
        };
        this.logged(
            || match &this.power {
                None => apply(),
                Some(power) => power
                    .change(&file, offset, length, || {
                        apply().map_err(|e| io::Error::from_raw_os_error(e.code()))
                    })
                    .map_err(errno),
            },
            |_| size_after(),
        )
    });
    this.account(Op::Fallocate, 0);
    reply_empty(reply, result);
}

pub(super) fn flush(this: &SlowFs, ino: INodeNo, reply: ReplyEmpty) {
    if ino.0 != STATS_INO && ino.0 != CONTROL_INO {
        // Nothing is buffered here (writes went straight to the backing file); the cost is
        // the round trip a network filesystem pays at close.
        this.account(Op::Flush, 0);
    }
    reply.ok();
}

pub(super) fn fsync(
    this: &SlowFs,
    ino: INodeNo,
    fh: FileHandle,
    datasync: bool,
    reply: ReplyEmpty,
) {
    let rel = this.rel(ino).unwrap_or_default();
    let result = this.file(fh).and_then(|file| {
        if let Some(code) = this.faults.on_fsync() {
            return Err(this.injected("fsync", &rel, code));
        }
        this.logged(
            || match &this.power {
                None => sync(&file, datasync),
                Some(power) => power
                    .sync(&file, || {
                        sync(&file, datasync).map_err(|e| io::Error::from_raw_os_error(e.code()))
                    })
                    .map_err(errno),
            },
            |_| {
                vec![(
                    LogOp::Fsync {
                        path: log_path(&rel),
                    },
                    None,
                )]
            },
        )
    });
    this.account(Op::Fsync, 0);
    reply_empty(reply, result);
}

pub(super) fn release(this: &SlowFs, ino: INodeNo, fh: FileHandle, reply: ReplyEmpty) {
    if ino.0 == STATS_INO {
        stats_file::release(this, fh, reply);
        return;
    }
    if ino.0 == CONTROL_INO {
        reply.ok();
        return;
    }
    let file = lock(&this.files).remove(&fh.0);
    drop(file);
    this.account(Op::Release, 0);
    reply.ok();
}

impl SlowFs {
    fn do_write(&self, ino: INodeNo, fh: FileHandle, offset: u64, data: &[u8]) -> FsResult<()> {
        let file = self.file(fh)?;
        let rel = self.rel(ino).unwrap_or_default();
        if let Some(code) = self.faults.on_write() {
            return Err(self.injected("write", &rel, code));
        }
        let sync_handle = PowerLoss::is_sync_handle(&file);
        self.logged(
            || write_through(self, &file, offset, data),
            |_| {
                let path = log_path(&rel);
                let mut ops = vec![(
                    LogOp::Write {
                        path: path.clone(),
                        offset,
                        len: data.len() as u64,
                        data_at: 0,
                    },
                    Some(data),
                )];
                if sync_handle {
                    ops.push((LogOp::WriteSynced { path }, None));
                }
                ops
            },
        )
    }

    fn do_read(&self, fh: FileHandle, offset: u64, size: u32) -> FsResult<Vec<u8>> {
        let file = self.file(fh)?;
        let mut buf = vec![0u8; size as usize];
        let mut filled = 0;
        while filled < buf.len() {
            match file.read_at(&mut buf[filled..], offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(errno(e)),
            }
        }
        buf.truncate(filled);
        Ok(buf)
    }

    fn do_create(
        &self,
        owner: Owner,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        flags: i32,
    ) -> FsResult<(FileAttr, u64)> {
        let rel = self.child(parent, name)?;
        let mut opts = open_options(flags);
        opts.mode(mode & 0o7777);
        if flags & libc::O_EXCL != 0 {
            opts.create_new(true);
        } else {
            opts.create(true);
        }
        let existed = std::fs::symlink_metadata(self.abs(&rel)).is_ok();
        let truncates = existed && flags & libc::O_TRUNC != 0;
        let file = self.logged(
            || opts.open(self.abs(&rel)).map_err(errno),
            |_| {
                let path = log_path(&rel);
                match (existed, truncates) {
                    (false, _) => vec![(LogOp::Create { path }, None)],
                    (true, true) => vec![(LogOp::SetLen { path, len: 0 }, None)],
                    (true, false) => Vec::new(),
                }
            },
        )?;
        self.give_to(&rel, owner)?;
        let meta = file.metadata().map_err(errno)?;
        let ino = lock(&self.inodes).lookup(&rel);
        let fh = self.new_fh();
        lock(&self.files).insert(fh, Arc::new(file));
        Ok((attr_of(ino, &meta), fh))
    }
}
