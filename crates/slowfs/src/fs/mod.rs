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
//! [`SlowFs`] and its operations live here; `callbacks` answers the kernel's requests with
//! them, and `sys` holds the libc side.

mod callbacks;
mod sys;

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{DirEntryExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use fuser::{Errno, FileAttr, FileHandle, FileType, INodeNo, RenameFlags, TimeOrNow};

use crate::inodes::{InodeTable, ROOT_INO, STATS_INO};
use crate::op::Op;
use crate::stats::Stats;

use sys::{attr_of, check, cpath, errno, lock, open_options, timespec, FsResult};

/// How long the kernel may cache entries and attributes.
pub const TTL: Duration = Duration::from_secs(1);

pub use crate::snapshot::STATS_FILE;

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
