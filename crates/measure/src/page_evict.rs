//! Makes a store's files cold: every regular file below a directory (a managed server's data
//! directory included) is flushed (`fdatasync`, so that dirty pages can go) and then dropped
//! from the page cache with `posix_fadvise(POSIX_FADV_DONTNEED)`. Only this store's files are
//! touched; the machine's other caches stay (no `drop_caches`, which would disturb whatever
//! else runs). Symbolic links are not followed. Pages still mapped by a process stay cached,
//! so the store must be closed first (LMDB reads through a memory map).

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// How [`evict_dir`] makes reads cold, as the growth record states it.
pub const METHOD: &str = "store closed (a managed server stopped), then fdatasync + \
posix_fadvise(POSIX_FADV_DONTNEED) on every file of the store directory (a managed server's \
data directory included), then reopened; no drop_caches";

/// Files evicted and their total size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Evicted {
    /// Regular files advised.
    pub files: u64,
    /// Their allocated size (blocks, so a sparse LMDB map counts what it holds), bytes.
    pub bytes: u64,
}

fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Evicts every regular file under `dir` from the page cache (see the module docs). Files that
/// vanish or cannot be opened are skipped: the caller measures what follows either way.
pub fn evict_dir(dir: &Path) -> Evicted {
    let mut out = Evicted::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            let inner = evict_dir(&path);
            out.files += inner.files;
            out.bytes += inner.bytes;
        } else if kind.is_file() {
            let Ok(file) = open(&path) else {
                continue;
            };
            let _ = file.sync_data();
            if drop_cached(&file) {
                out.files += 1;
                out.bytes += file.metadata().map(|m| m.blocks() * 512).unwrap_or(0);
            }
        }
    }
    out
}

/// Drops `file`'s clean pages from the page cache; `false` where the system cannot.
#[cfg(target_os = "linux")]
fn drop_cached(file: &File) -> bool {
    // SAFETY: posix_fadvise only advises the kernel about an open descriptor's pages.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) == 0 }
}

/// Drops `file`'s clean pages from the page cache; `false` where the system cannot (macOS has
/// no `posix_fadvise`: no file is counted as evicted, and the record says so by its count).
#[cfg(not(target_os = "linux"))]
fn drop_cached(_file: &File) -> bool {
    false
}

/// Pages of `path` in the page cache, from `mincore` over a read-only map (for tests and
/// checks); `None` for an empty or unreadable file.
pub fn cached_pages(path: &Path) -> Option<(u64, u64)> {
    let file = open(path).ok()?;
    let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
    if len == 0 {
        return None;
    }
    // SAFETY: a private read-only map of an open file, unmapped below; mincore only fills
    // `vec`, one byte per page of the map.
    unsafe {
        let map = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        );
        if map == libc::MAP_FAILED {
            return None;
        }
        let page = usize::try_from(libc::sysconf(libc::_SC_PAGESIZE)).unwrap_or(4096);
        let pages = len.div_ceil(page);
        let mut vec = vec![0u8; pages];
        let rc = libc::mincore(map, len, vec.as_mut_ptr().cast());
        libc::munmap(map, len);
        if rc != 0 {
            return None;
        }
        let resident = vec.iter().filter(|&&b| b & 1 == 1).count() as u64;
        Some((resident, pages as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_written_file_leaves_the_page_cache() {
        // tmpfs keeps its pages whatever the advice: use the working directory's filesystem.
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("sub").join("data");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        drop(f);
        let _ = fs::read(&path).unwrap();
        let evicted = evict_dir(dir.path());
        assert_eq!(evicted.files, 1);
        assert_eq!(evicted.bytes, 1 << 20);
        let (resident, pages) = cached_pages(&path).unwrap();
        assert_eq!(pages, 256);
        assert!(
            resident < pages / 2,
            "{resident} of {pages} pages still cached"
        );
    }
}
