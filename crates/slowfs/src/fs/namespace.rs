//! Names in directories: lookup and forget, creating nodes, directories, symlinks and links,
//! reading links, removing and renaming. Whatever changes a name in the backing directory changes
//! it in the inode table too, so the kernel's inode numbers keep naming the right paths.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use fuser::{Errno, Generation, INodeNo, RenameFlags, ReplyData, ReplyEmpty, ReplyEntry};

use crate::model::LogOp;
use crate::op::Op;

use super::sys::{check, cpath, errno, lock, reply_empty, FsResult};
use super::{control_file, stats_file};
use super::{log_path, Owner, SlowFs, TTL};

pub(super) fn lookup(this: &SlowFs, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
    if SlowFs::is_stats(parent, name) {
        stats_file::lookup(this, reply);
        return;
    }
    if this.is_control(parent, name) {
        control_file::lookup(reply);
        return;
    }
    let result = this.child(parent, name).and_then(|rel| this.entry(&rel));
    this.account(Op::Lookup, 0);
    match result {
        Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
        Err(e) => reply.error(e),
    }
}

pub(super) fn forget(this: &SlowFs, ino: INodeNo, nlookup: u64) {
    lock(&this.inodes).forget(ino.0, nlookup);
}

pub(super) fn mknod(
    this: &SlowFs,
    owner: Owner,
    parent: INodeNo,
    name: &OsStr,
    mode: u32,
    rdev: u32,
    reply: ReplyEntry,
) {
    let result = this.child(parent, name).and_then(|rel| {
        this.logged(
            || this.do_mknod(&rel, mode, rdev),
            |_| {
                vec![(
                    LogOp::Create {
                        path: log_path(&rel),
                    },
                    None,
                )]
            },
        )?;
        this.give_to(&rel, owner)?;
        this.entry(&rel)
    });
    this.account(Op::Mknod, 0);
    match result {
        Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
        Err(e) => reply.error(e),
    }
}

pub(super) fn mkdir(
    this: &SlowFs,
    owner: Owner,
    parent: INodeNo,
    name: &OsStr,
    mode: u32,
    umask: u32,
    reply: ReplyEntry,
) {
    let result = this.child(parent, name).and_then(|rel| {
        this.logged(
            || {
                fs::DirBuilder::new()
                    .mode(mode & !umask & 0o7777)
                    .create(this.abs(&rel))
                    .map_err(errno)
            },
            |_| {
                vec![(
                    LogOp::Mkdir {
                        path: log_path(&rel),
                    },
                    None,
                )]
            },
        )?;
        this.give_to(&rel, owner)?;
        this.entry(&rel)
    });
    this.account(Op::Mkdir, 0);
    match result {
        Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
        Err(e) => reply.error(e),
    }
}

pub(super) fn unlink(this: &SlowFs, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
    if SlowFs::is_stats(parent, name) {
        reply.error(Errno::EACCES);
        return;
    }
    let result = this.do_remove(parent, name, false);
    this.account(Op::Unlink, 0);
    reply_empty(reply, result);
}

pub(super) fn rmdir(this: &SlowFs, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
    let result = this.do_remove(parent, name, true);
    this.account(Op::Rmdir, 0);
    reply_empty(reply, result);
}

pub(super) fn symlink(
    this: &SlowFs,
    owner: Owner,
    parent: INodeNo,
    link_name: &OsStr,
    target: &Path,
    reply: ReplyEntry,
) {
    let result = this.child(parent, link_name).and_then(|rel| {
        this.logged(
            || std::os::unix::fs::symlink(target, this.abs(&rel)).map_err(errno),
            |_| {
                vec![(
                    LogOp::Symlink {
                        path: log_path(&rel),
                        target: target.to_string_lossy().into_owned(),
                    },
                    None,
                )]
            },
        )?;
        this.give_to(&rel, owner)?;
        this.entry(&rel)
    });
    this.account(Op::Symlink, 0);
    match result {
        Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
        Err(e) => reply.error(e),
    }
}

pub(super) fn readlink(this: &SlowFs, ino: INodeNo, reply: ReplyData) {
    let result = this
        .rel(ino)
        .and_then(|rel| fs::read_link(this.abs(&rel)).map_err(errno));
    this.account(Op::Readlink, 0);
    match result {
        Ok(target) => reply.data(target.as_os_str().as_bytes()),
        Err(e) => reply.error(e),
    }
}

pub(super) fn rename(
    this: &SlowFs,
    parent: INodeNo,
    name: &OsStr,
    newparent: INodeNo,
    newname: &OsStr,
    flags: RenameFlags,
    reply: ReplyEmpty,
) {
    if SlowFs::is_stats(parent, name) || SlowFs::is_stats(newparent, newname) {
        reply.error(Errno::EACCES);
        return;
    }
    let result = this.do_rename(parent, name, newparent, newname, flags);
    this.account(Op::Rename, 0);
    reply_empty(reply, result);
}

pub(super) fn link(
    this: &SlowFs,
    ino: INodeNo,
    newparent: INodeNo,
    newname: &OsStr,
    reply: ReplyEntry,
) {
    let result = this.rel(ino).and_then(|src| {
        let rel = this.child(newparent, newname)?;
        this.logged(
            || fs::hard_link(this.abs(&src), this.abs(&rel)).map_err(errno),
            |_| {
                vec![(
                    LogOp::Link {
                        from: log_path(&src),
                        to: log_path(&rel),
                    },
                    None,
                )]
            },
        )?;
        this.entry(&rel)
    });
    this.account(Op::Link, 0);
    match result {
        Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
        Err(e) => reply.error(e),
    }
}

impl SlowFs {
    fn do_rename(
        &self,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
    ) -> FsResult<()> {
        let from = self.child(parent, name)?;
        let to = self.child(newparent, newname)?;
        // Hold the table across the rename so no lookup sees the paths half-moved.
        let mut inodes = lock(&self.inodes);
        if flags.is_empty() {
            self.logged(
                || fs::rename(self.abs(&from), self.abs(&to)).map_err(errno),
                |_| {
                    vec![(
                        LogOp::Rename {
                            from: log_path(&from),
                            to: log_path(&to),
                        },
                        None,
                    )]
                },
            )?;
        } else {
            let (a, b) = (cpath(&self.abs(&from))?, cpath(&self.abs(&to))?);
            // SAFETY: both are valid NUL-terminated paths.
            check(unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    a.as_ptr(),
                    libc::AT_FDCWD,
                    b.as_ptr(),
                    flags.bits(),
                )
            })?;
        }
        if flags.contains(RenameFlags::RENAME_EXCHANGE) {
            inodes.exchange(&from, &to);
        } else {
            inodes.rename(&from, &to);
        }
        Ok(())
    }

    fn do_remove(&self, parent: INodeNo, name: &OsStr, dir: bool) -> FsResult<()> {
        let rel = self.child(parent, name)?;
        let path = self.abs(&rel);
        let mut inodes = lock(&self.inodes);
        let path_name = log_path(&rel);
        self.logged(
            || {
                if dir {
                    fs::remove_dir(&path).map_err(errno)
                } else {
                    fs::remove_file(&path).map_err(errno)
                }
            },
            |_| {
                let op = if dir {
                    LogOp::Rmdir { path: path_name }
                } else {
                    LogOp::Unlink { path: path_name }
                };
                vec![(op, None)]
            },
        )?;
        inodes.detach(&rel);
        Ok(())
    }

    fn do_mknod(&self, rel: &Path, mode: u32, rdev: u32) -> FsResult<()> {
        let c = cpath(&self.abs(rel))?;
        // SAFETY: `c` is a valid NUL-terminated path.
        check(unsafe { libc::mknod(c.as_ptr(), mode as libc::mode_t, libc::dev_t::from(rdev)) })
    }
}
