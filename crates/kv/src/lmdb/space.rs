//! Disk blocks for `lmdb-async` (WRITEMAP) writes, reserved before LMDB touches them.
//!
//! With WRITEMAP, LMDB extends its data file to the map size as a *sparse* file and writes
//! pages straight through the shared memory map. When the disk is full the kernel cannot back
//! a page the writer dirties and the process dies of SIGBUS: no error, no message, nothing a
//! caller could catch. So the writer reserves real blocks (`fallocate`) ahead of the pages it
//! may dirty: the committed pages plus a headroom before a transaction begins, and more as its
//! writes add up (`Reservation::grow`). A reservation the filesystem refuses is a
//! [`KvError::DiskFull`] *before* any page is touched: the transaction is rolled back, every
//! acknowledged commit stays, and the store keeps working once space is freed.
//!
//! Reserved blocks stay allocated (the file only grows, as LMDB's own files do), so the store
//! occupies up to [`HEADROOM`] more on disk than its pages. A filesystem without `fallocate`
//! (some FUSE mounts) gets no reservation, and a full disk there can still end in SIGBUS.
//!
//! Both profiles share one more such trap: LMDB sizes its lock file with `ftruncate` (sparse)
//! and writes its reader table through a shared map, so opening a store on a full disk died of
//! SIGBUS before any error could be returned. [`reserve_lock_file`] gives the lock file its
//! blocks before LMDB opens it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{KvError, KvResult};

/// Reserved beyond what a transaction is estimated to need, so that most writes reserve nothing.
pub const HEADROOM: u64 = 1 << 20;

/// Pages one write may dirty besides its own bytes: the copied path and a split leaf.
const PAGES_PER_WRITE: u64 = 4;

/// The reserved prefix of one WRITEMAP data file.
#[derive(Debug)]
pub struct Reservation {
    file: File,
    dir: PathBuf,
    /// Bytes from the start of the file known to be allocated.
    reserved: AtomicU64,
    /// Cleared when the filesystem does not support `fallocate`.
    supported: AtomicBool,
}

impl Reservation {
    /// Opens `data_file` (which LMDB has created) for reserving; `dir` names the store in errors.
    pub fn open(data_file: &Path, dir: &Path) -> KvResult<Reservation> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(data_file)
            .map_err(|e| KvError::io("open for space reservation", data_file, e))?;
        Ok(Reservation {
            file,
            dir: dir.to_path_buf(),
            reserved: AtomicU64::new(0),
            supported: AtomicBool::new(true),
        })
    }

    /// Makes sure the first `end` bytes of the file (capped at `limit`, the file's mapped
    /// length) have blocks, reserving up to a [`HEADROOM`] more when it must reserve at all.
    pub fn ensure(&self, end: u64, limit: u64) -> KvResult<()> {
        let end = end.min(limit);
        let reserved = self.reserved.load(Ordering::Acquire);
        if end <= reserved || !self.supported.load(Ordering::Relaxed) {
            return Ok(());
        }
        let target = (end.div_ceil(HEADROOM) * HEADROOM + HEADROOM).min(limit);
        // Only what is not reserved yet: the filesystem visits every page of the range asked
        // for, allocated or not (tmpfs looks each one up), so asking from 0 each time made a
        // reservation cost the whole file (24% of lmdb-async's time on a 1.4 GB store).
        match allocate(&self.file, reserved, target) {
            Ok(()) => {
                self.reserved.fetch_max(target, Ordering::AcqRel);
                Ok(())
            }
            Err(e) if is_unsupported(&e) => {
                self.supported.store(false, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => Err(KvError::disk_full(
                &self.dir,
                format!("cannot reserve {target} bytes for memory-mapped writes: {e}"),
            )),
        }
    }
}

/// Bytes per stored entry besides its key and value (LMDB's node header, rounded up).
const NODE_OVERHEAD: u64 = 16;

/// What one write transaction may use of the data file, estimated as its writes add up.
///
/// Each write may dirty its bytes plus `PAGES_PER_WRITE` pages (the copied path and a split
/// leaf), but a transaction copies each committed page at most once, and its new entries fill
/// pages at least half: so it never needs more than the committed pages twice over plus twice
/// its new bytes. Without that cap a large batch (a bulk fill's 1.5 million puts) was charged
/// 16 KiB per put: ten times the store, reserved with `fallocate` (40% of a fill's time on
/// tmpfs, and the store's size on disk inflated as much).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimate {
    committed: u64,
    bytes: u64,
    writes: u64,
}

impl Estimate {
    /// A transaction starting on `committed` bytes of committed pages.
    pub fn new(committed: u64) -> Estimate {
        Estimate {
            committed,
            bytes: 0,
            writes: 0,
        }
    }

    /// Adds one write of `bytes` (key and value) and returns the most bytes of the data file
    /// the transaction may then use.
    pub fn add(&mut self, bytes: usize, page_size: u64) -> u64 {
        self.bytes += bytes as u64;
        self.writes += 1;
        let per_write = self.bytes + self.writes * PAGES_PER_WRITE * page_size;
        let cap = self.committed + 2 * (self.bytes + self.writes * NODE_OVERHEAD) + 64 * page_size;
        self.committed + per_write.min(cap)
    }
}

/// Blocks reserved for LMDB's lock file: its reader table for the default 126 readers is
/// under 10 KiB on 64-bit systems; the rest is margin for a larger page or cache line.
pub const LOCK_FILE_BYTES: u64 = 64 << 10;

/// Creates LMDB's lock file at `lock_file` if needed and reserves [`LOCK_FILE_BYTES`] of blocks
/// for it (its length stays LMDB's to set), so the map LMDB writes its reader table through is
/// backed: a full disk is [`KvError::DiskFull`] here instead of a SIGBUS inside LMDB. `dir`
/// names the store in errors. Without `fallocate` (some FUSE mounts) it reserves nothing.
pub fn reserve_lock_file(lock_file: &Path, dir: &Path) -> KvResult<()> {
    use std::os::unix::fs::OpenOptionsExt;
    // 0600: a store is readable by its owner alone (issue 48).
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(crate::store_dir::FILE_MODE)
        .open(lock_file)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENOSPC) => {
                KvError::disk_full(dir, format!("cannot create the lock file: {e}"))
            }
            _ => KvError::io("create the lock file", lock_file, e),
        })?;
    match allocate(&file, 0, LOCK_FILE_BYTES) {
        Ok(()) => Ok(()),
        Err(e) if is_unsupported(&e) => Ok(()),
        Err(e) => Err(KvError::disk_full(
            dir,
            format!("cannot reserve {LOCK_FILE_BYTES} bytes for the lock file: {e}"),
        )),
    }
}

fn is_unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS)
    )
}

/// Allocates blocks for `[from, to)` of `file` without changing its length.
#[cfg(target_os = "linux")]
fn allocate(file: &File, from: u64, to: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let offset = libc::off_t::try_from(from).map_err(|_| std::io::ErrorKind::InvalidInput)?;
    let len = libc::off_t::try_from(to.saturating_sub(from))
        .map_err(|_| std::io::ErrorKind::InvalidInput)?;
    loop {
        // SAFETY: fallocate on a descriptor we own; mode KEEP_SIZE never shrinks or grows it.
        let rc =
            unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Elsewhere there is no portable way to reserve blocks: the reservation is a no-op.
#[cfg(not(target_os = "linux"))]
fn allocate(_file: &File, _from: u64, _to: u64) -> std::io::Result<()> {
    Err(std::io::Error::from_raw_os_error(libc::ENOSYS))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// Bytes of `path` with blocks allocated, rounded down to whole [`HEADROOM`]s (a
    /// filesystem may count a block of its own metadata).
    fn allocated(path: &Path) -> u64 {
        let bytes = std::fs::metadata(path).expect("metadata").blocks() * 512;
        bytes / HEADROOM * HEADROOM
    }

    /// Each reservation allocates up to the next whole headroom past what it needs, once:
    /// a request within what is reserved allocates nothing, and nothing past the map is
    /// allocated.
    #[test]
    fn reservations_allocate_what_the_writer_may_touch() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("data");
        let limit = 16 * HEADROOM;
        File::create(&path)
            .and_then(|f| f.set_len(limit))
            .expect("sparse file");
        let reservation = Reservation::open(&path, dir.path()).expect("open");
        assert_eq!(allocated(&path), 0, "the file starts sparse");
        reservation.ensure(3 * HEADROOM, limit).expect("reserve");
        assert_eq!(allocated(&path), 4 * HEADROOM);
        reservation.ensure(4 * HEADROOM, limit).expect("reserve");
        assert_eq!(allocated(&path), 4 * HEADROOM);
        reservation
            .ensure(6 * HEADROOM + 1, limit)
            .expect("reserve");
        assert_eq!(allocated(&path), 8 * HEADROOM);
        reservation.ensure(limit * 2, limit).expect("reserve");
        assert_eq!(allocated(&path), limit);
    }

    /// Opening a fresh `lmdb-async` store reserves the first writer's blocks, so a first
    /// commit (the first timed one in a measurement) finds them reserved.
    #[test]
    fn opening_a_fresh_store_reserves_the_first_writers_blocks() {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = crate::lmdb::LmdbOptions {
            map_size: 64 << 20,
            transact_flags: true,
        };
        let store = crate::lmdb::LmdbStore::open(dir.path(), &["t"], options).expect("open");
        let data = dir.path().join("triebench.lmdb");
        assert!(
            allocated(&data) >= HEADROOM,
            "{} bytes allocated after open",
            allocated(&data)
        );
        drop(store);
    }

    /// A few writes are charged their pages each; a large batch is capped at twice the
    /// committed pages plus twice its bytes, not 16 KiB a put.
    #[test]
    fn a_large_batch_is_capped_at_twice_the_store_plus_its_bytes() {
        let page = 4096;
        let mut small = Estimate::new(1 << 30);
        assert_eq!(small.add(100, page), (1 << 30) + 100 + 4 * page);
        let mut large = Estimate::new(100 << 20);
        let mut may_use = 0;
        for _ in 0..1_000_000 {
            may_use = large.add(200, page);
        }
        let cap = (100 << 20) * 2 + 2 * (200 + 16) * 1_000_000 + 64 * page;
        assert_eq!(may_use, cap);
        assert!(may_use < 1_000_000 * 4 * page);
    }
}
