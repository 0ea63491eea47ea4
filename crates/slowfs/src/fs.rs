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

use std::collections::HashMap;
use std::ffi::{CString, OsStr, OsString};
use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, DirEntryExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, LockOwner, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory,
    ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, ReplyXattr, Request, TimeOrNow,
    WriteFlags,
};

use crate::inodes::{InodeTable, ROOT_INO, STATS_INO};
use crate::op::Op;
use crate::stats::Stats;

/// How long the kernel may cache entries and attributes.
pub const TTL: Duration = Duration::from_secs(1);

pub use crate::snapshot::STATS_FILE;

type FsResult<T> = Result<T, Errno>;

fn errno(e: io::Error) -> Errno {
    Errno::from(e)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn cpath(path: &Path) -> FsResult<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| Errno::EINVAL)
}

/// The result of a libc call returning -1 on error.
fn check(ret: libc::c_int) -> FsResult<()> {
    if ret == -1 {
        Err(errno(io::Error::last_os_error()))
    } else {
        Ok(())
    }
}

fn system_time(secs: i64, nsecs: i64) -> SystemTime {
    let nsecs = nsecs.clamp(0, 999_999_999) as u32;
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs as u64, nsecs)
    } else {
        UNIX_EPOCH - Duration::new(secs.unsigned_abs(), 0) + Duration::new(0, nsecs)
    }
}

fn attr_of(ino: u64, m: &Metadata) -> FileAttr {
    FileAttr {
        ino: INodeNo(ino),
        size: m.size(),
        blocks: m.blocks(),
        atime: system_time(m.atime(), m.atime_nsec()),
        mtime: system_time(m.mtime(), m.mtime_nsec()),
        ctime: system_time(m.ctime(), m.ctime_nsec()),
        crtime: UNIX_EPOCH,
        kind: FileType::from_std(m.file_type()).unwrap_or(FileType::RegularFile),
        perm: (m.mode() & 0o7777) as u16,
        nlink: m.nlink() as u32,
        uid: m.uid(),
        gid: m.gid(),
        rdev: m.rdev() as u32,
        blksize: m.blksize() as u32,
        flags: 0,
    }
}

fn timespec(t: Option<TimeOrNow>) -> libc::timespec {
    match t {
        None => libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT,
        },
        Some(TimeOrNow::Now) => libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_NOW,
        },
        Some(TimeOrNow::SpecificTime(t)) => match t.duration_since(UNIX_EPOCH) {
            Ok(d) => libc::timespec {
                tv_sec: d.as_secs() as libc::time_t,
                tv_nsec: d.subsec_nanos() as libc::c_long,
            },
            Err(before) => {
                let d = before.duration();
                libc::timespec {
                    tv_sec: -(d.as_secs() as libc::time_t),
                    tv_nsec: 0,
                }
            }
        },
    }
}

/// Open flags passed to the backing `open(2)`: the kernel's, less those slowfs must not
/// forward. `O_APPEND` goes because the kernel sends each write's offset (and pages written back
/// from `mmap` may use any writable handle); `O_DIRECT` because FUSE buffers are not aligned.
fn backing_flags(flags: i32) -> i32 {
    flags
        & !(libc::O_ACCMODE
            | libc::O_CREAT
            | libc::O_EXCL
            | libc::O_NOCTTY
            | libc::O_APPEND
            | libc::O_DIRECT)
}

fn open_options(flags: i32) -> OpenOptions {
    let acc = flags & libc::O_ACCMODE;
    let mut o = OpenOptions::new();
    o.read(acc == libc::O_RDONLY || acc == libc::O_RDWR)
        .write(acc == libc::O_WRONLY || acc == libc::O_RDWR)
        .custom_flags(backing_flags(flags));
    o
}

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
        Ok(self.rel(parent)?.join(name))
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

    fn is_stats(parent: INodeNo, name: &OsStr) -> bool {
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
            match fh.map(|fh| self.file(fh)) {
                Some(Ok(file)) => file.set_len(size).map_err(errno)?,
                _ => {
                    let len = libc::off_t::try_from(size).map_err(|_| Errno::EFBIG)?;
                    // SAFETY: `c` is a valid NUL-terminated path.
                    check(unsafe { libc::truncate(c.as_ptr(), len) })?;
                }
            }
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
            fs::rename(self.abs(&from), self.abs(&to)).map_err(errno)?;
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
        if dir {
            fs::remove_dir(&path).map_err(errno)?;
        } else {
            fs::remove_file(&path).map_err(errno)?;
        }
        inodes.detach(&rel);
        Ok(())
    }

    fn do_create(
        &self,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
    ) -> FsResult<(FileAttr, u64)> {
        let rel = self.child(parent, name)?;
        let mut opts = open_options(flags);
        opts.mode(mode & !umask & 0o7777);
        if flags & libc::O_EXCL != 0 {
            opts.create_new(true);
        } else {
            opts.create(true);
        }
        let file = opts.open(self.abs(&rel)).map_err(errno)?;
        let meta = file.metadata().map_err(errno)?;
        let ino = lock(&self.inodes).lookup(&rel);
        let fh = self.new_fh();
        lock(&self.files).insert(fh, Arc::new(file));
        Ok((attr_of(ino, &meta), fh))
    }

    fn do_mknod(&self, rel: &Path, mode: u32, rdev: u32) -> FsResult<()> {
        let c = cpath(&self.abs(rel))?;
        // SAFETY: `c` is a valid NUL-terminated path.
        check(unsafe { libc::mknod(c.as_ptr(), mode as libc::mode_t, libc::dev_t::from(rdev)) })
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
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let result = self.do_remove(parent, name, true);
        self.account(Op::Rmdir, 0);
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
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
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
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
        _ino: INodeNo,
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
        let result = self.file(fh).and_then(|file| {
            if datasync {
                file.sync_data()
            } else {
                file.sync_all()
            }
            .map_err(errno)
        });
        self.account(Op::Fsync, 0);
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
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
            Some(h) => if datasync {
                h.dir.sync_data()
            } else {
                h.dir.sync_all()
            }
            .map_err(errno),
            None => Err(Errno::EBADF),
        };
        self.account(Op::Fsyncdir, 0);
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
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
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
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
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backing_flags_drop_what_must_not_be_forwarded() {
        let f = backing_flags(libc::O_RDWR | libc::O_APPEND | libc::O_DIRECT | libc::O_SYNC);
        assert_eq!(f, libc::O_SYNC);
    }

    #[test]
    fn times_before_and_after_the_epoch() {
        assert_eq!(system_time(1, 5), UNIX_EPOCH + Duration::new(1, 5));
        assert!(system_time(-10, 0) < UNIX_EPOCH);
        let ts = timespec(Some(TimeOrNow::SpecificTime(
            UNIX_EPOCH + Duration::new(7, 9),
        )));
        assert_eq!((ts.tv_sec, ts.tv_nsec), (7, 9));
        assert_eq!(timespec(None).tv_nsec, libc::UTIME_OMIT);
    }
}
