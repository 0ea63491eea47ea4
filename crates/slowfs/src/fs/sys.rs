//! The system side of the passthrough: errno mapping, libc calls, attributes and times, and
//! which open flags reach the backing file.

use std::ffi::CString;
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{Errno, FileAttr, FileType, INodeNo, ReplyEmpty, TimeOrNow};

pub(super) type FsResult<T> = Result<T, Errno>;

pub(super) fn errno(e: io::Error) -> Errno {
    Errno::from(e)
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(super) fn cpath(path: &Path) -> FsResult<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| Errno::EINVAL)
}

/// The result of a libc call returning -1 on error.
pub(super) fn check(ret: libc::c_int) -> FsResult<()> {
    if ret == -1 {
        Err(errno(io::Error::last_os_error()))
    } else {
        Ok(())
    }
}

/// Flushes `file` to stable storage: its data only (`fdatasync`) or with its metadata (`fsync`).
pub(super) fn sync(file: &File, datasync: bool) -> FsResult<()> {
    if datasync {
        file.sync_data()
    } else {
        file.sync_all()
    }
    .map_err(errno)
}

/// Whether this daemon runs as root (and so can give nodes to other users).
pub(super) fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Changes the owner of `path` itself (not a symlink's target).
pub(super) fn lchown(path: &Path, uid: u32, gid: u32) -> FsResult<()> {
    let c = cpath(path)?;
    // SAFETY: `c` is a valid NUL-terminated path.
    check(unsafe { libc::lchown(c.as_ptr(), uid, gid) })
}

pub(super) fn reply_empty(reply: ReplyEmpty, result: FsResult<()>) {
    match result {
        Ok(()) => reply.ok(),
        Err(e) => reply.error(e),
    }
}

pub(super) fn system_time(secs: i64, nsecs: i64) -> SystemTime {
    let nsecs = nsecs.clamp(0, 999_999_999) as u32;
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs as u64, nsecs)
    } else {
        UNIX_EPOCH - Duration::new(secs.unsigned_abs(), 0) + Duration::new(0, nsecs)
    }
}

pub(super) fn attr_of(ino: u64, m: &Metadata) -> FileAttr {
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

pub(super) fn timespec(t: Option<TimeOrNow>) -> libc::timespec {
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
pub(super) fn backing_flags(flags: i32) -> i32 {
    flags
        & !(libc::O_ACCMODE
            | libc::O_CREAT
            | libc::O_EXCL
            | libc::O_NOCTTY
            | libc::O_APPEND
            | libc::O_DIRECT)
}

pub(super) fn open_options(flags: i32) -> OpenOptions {
    let acc = flags & libc::O_ACCMODE;
    let mut o = OpenOptions::new();
    o.read(acc == libc::O_RDONLY || acc == libc::O_RDWR)
        .write(acc == libc::O_WRONLY || acc == libc::O_RDWR)
        .custom_flags(backing_flags(flags));
    o
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
