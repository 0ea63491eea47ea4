//! Open directories: opendir reads the entries once, readdir pages through that list, fsyncdir
//! makes the directory's own changes durable, releasedir drops the handle. Reading at open keeps
//! the offsets the kernel hands back valid while the directory changes.

use std::fs::{self, File};
use std::os::unix::fs::DirEntryExt;
use std::sync::Arc;

use fuser::{
    Errno, FileHandle, FileType, FopenFlags, INodeNo, ReplyDirectory, ReplyEmpty, ReplyOpen,
};

use crate::inodes::ROOT_INO;
use crate::model::LogOp;
use crate::op::Op;

use super::sys::{errno, lock, reply_empty, sync, FsResult};
use super::{log_path, DirEntry, DirHandle, SlowFs};

pub(super) fn opendir(this: &SlowFs, ino: INodeNo, reply: ReplyOpen) {
    let result = this.do_opendir(ino);
    this.account(Op::Opendir, 0);
    match result {
        Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::empty()),
        Err(e) => reply.error(e),
    }
}

pub(super) fn readdir(this: &SlowFs, fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
    let handle = lock(&this.dirs).get(&fh.0).cloned();
    this.account(Op::Readdir, 0);
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

pub(super) fn fsyncdir(
    this: &SlowFs,
    ino: INodeNo,
    fh: FileHandle,
    datasync: bool,
    reply: ReplyEmpty,
) {
    let handle = lock(&this.dirs).get(&fh.0).cloned();
    let rel = this.rel(ino).unwrap_or_default();
    let result = match handle {
        Some(_) if this.faults.on_fsync().is_some() => {
            Err(this.injected("fsyncdir", &rel, libc::EIO))
        }
        Some(h) => this.logged(
            || sync(&h.dir, datasync),
            |_| {
                vec![(
                    LogOp::FsyncDir {
                        path: log_path(&rel),
                    },
                    None,
                )]
            },
        ),
        None => Err(Errno::EBADF),
    };
    this.account(Op::Fsyncdir, 0);
    reply_empty(reply, result);
}

pub(super) fn releasedir(this: &SlowFs, fh: FileHandle, reply: ReplyEmpty) {
    let handle = lock(&this.dirs).remove(&fh.0);
    drop(handle);
    this.account(Op::Releasedir, 0);
    reply.ok();
}

impl SlowFs {
    fn do_opendir(&self, ino: INodeNo) -> FsResult<u64> {
        let rel = self.rel(ino)?;
        let path = self.abs(&rel);
        let dir = File::open(&path).map_err(errno)?;
        let parent_ino = match rel.parent() {
            Some(p) => lock(&self.inodes).peek(p).unwrap_or(ROOT_INO),
            None => ROOT_INO,
        };
        let mut entries = vec![
            DirEntry {
                ino: ino.0,
                kind: FileType::Directory,
                name: ".".into(),
            },
            DirEntry {
                ino: parent_ino,
                kind: FileType::Directory,
                name: "..".into(),
            },
        ];
        for entry in fs::read_dir(&path).map_err(errno)? {
            let entry = entry.map_err(errno)?;
            let name = entry.file_name();
            let kind = entry
                .file_type()
                .ok()
                .and_then(FileType::from_std)
                .unwrap_or(FileType::RegularFile);
            let ino = lock(&self.inodes)
                .peek(&rel.join(&name))
                .unwrap_or_else(|| entry.ino());
            entries.push(DirEntry { ino, kind, name });
        }
        let fh = self.new_fh();
        lock(&self.dirs).insert(fh, Arc::new(DirHandle { dir, entries }));
        Ok(fh)
    }
}
