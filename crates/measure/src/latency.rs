//! What a directory's filesystem charges per operation class, measured: the median of a few
//! dozen timed operations each, in µs. `triebench capture-fs` records it with each run, and the
//! predictor charges each counted operation the difference from the baseline filesystem.
//!
//! - metadata: a lookup of a name that does not exist (one round trip, nothing cached);
//! - read: a 4 KiB `pread` after `posix_fadvise(DONTNEED)` dropped the file's cached pages;
//! - write: a 4 KiB `pwrite` (into the page cache, or through to the server on write-through
//!   filesystems such as slowfs);
//! - sync: an `fdatasync` after a 4 KiB `pwrite` (the write is not timed);
//! - flush per extent ([`probe_flush_extent`]): what each further separate run of dirty data
//!   adds to an `fdatasync`: (sync after 16 scattered 4 KiB writes − sync after one) / 15. A
//!   page-cache filesystem pays here what it did not pay at `write`; a write-through one
//!   (slowfs) pays nothing more.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::Instant;

use crate::error::MeasureError;
use triebench_record::PerClass;

/// Timed operations per class.
pub const SAMPLES: usize = 31;

const BLOCK: usize = 4096;

fn median_us(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(0.0)
}

fn time_us(f: impl FnOnce() -> std::io::Result<()>) -> std::io::Result<f64> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed().as_secs_f64() * 1e6)
}

/// Names the directory under test in the probes' OS errors (here and in the headline's fsync
/// floor, [`crate::micro_run`]).
#[derive(Clone, Copy)]
pub(crate) struct ProbeIo<'a>(pub(crate) &'a Path);

impl<'a> ProbeIo<'a> {
    /// Turns an OS error of step `what` into an [`MeasureError`].
    pub(crate) fn err(
        self,
        what: &'static str,
    ) -> impl FnOnce(std::io::Error) -> MeasureError + 'a {
        move |source| MeasureError::Io {
            what,
            dir: self.0.to_path_buf(),
            source,
        }
    }
}

/// A fresh scratch directory in `dir` (removed on drop) holding one new file, open read-write.
fn scratch_file(dir: &Path) -> Result<(tempfile::TempDir, File), MeasureError> {
    let io = ProbeIo(dir);
    let scratch = tempfile::Builder::new()
        .prefix("triebench-probe-")
        .tempdir_in(dir)
        .map_err(io.err("cannot create the latency probe's directory"))?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(scratch.path().join("probe"))
        .map_err(io.err("cannot create the latency probe's file"))?;
    Ok((scratch, file))
}

/// Measures the median cost per operation class in `dir` (µs), in a scratch directory there
/// that is removed afterwards.
pub fn probe_dir(dir: &Path) -> Result<PerClass<f64>, MeasureError> {
    let io = ProbeIo(dir);
    let (scratch, file) = scratch_file(dir)?;
    let block = [0x5au8; BLOCK];

    let mut writes = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let offset = (i * BLOCK) as u64;
        writes.push(time_us(|| file.write_all_at(&block, offset)).map_err(io.err("probe write"))?);
    }
    let mut syncs = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let offset = ((i % 8) * BLOCK) as u64;
        file.write_all_at(&block, offset)
            .map_err(io.err("probe write"))?;
        syncs.push(time_us(|| file.sync_data()).map_err(io.err("probe fdatasync"))?);
    }
    let mut reads = Vec::with_capacity(SAMPLES);
    let mut buf = [0u8; BLOCK];
    for i in 0..SAMPLES {
        drop_cached_pages(&file).map_err(io.err("probe posix_fadvise"))?;
        let offset = (i * BLOCK) as u64;
        reads.push(time_us(|| file.read_exact_at(&mut buf, offset)).map_err(io.err("probe read"))?);
    }
    let mut lookups = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let absent = scratch.path().join(format!("absent-{i}"));
        lookups.push(
            time_us(|| match std::fs::symlink_metadata(&absent) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
                Ok(_) => Err(std::io::Error::other("a fresh name exists")),
            })
            .map_err(io.err("probe lookup"))?,
        );
    }
    Ok(PerClass {
        metadata: median_us(lookups),
        read: median_us(reads),
        write: median_us(writes),
        sync: median_us(syncs),
    })
}

/// Scattered writes per round of [`probe_flush_extent`].
const EXTENTS: usize = 16;

/// Rounds of [`probe_flush_extent`] (median taken).
const ROUNDS: usize = 9;

/// Measures what each further separate run of dirty 4 KiB data adds to an `fdatasync` in `dir`
/// (µs, median of a few rounds, at least 0), in a scratch directory that is removed afterwards.
pub fn probe_flush_extent(dir: &Path) -> Result<f64, MeasureError> {
    let io = ProbeIo(dir);
    let (_scratch, file) = scratch_file(dir)?;
    let block = [0xa5u8; BLOCK];
    // Every other block, so no two dirty blocks are adjacent.
    let offset = |i: usize| (i * 2 * BLOCK) as u64;
    for i in 0..EXTENTS {
        file.write_all_at(&block, offset(i))
            .map_err(io.err("probe write"))?;
    }
    file.sync_data().map_err(io.err("probe fdatasync"))?;
    let mut per_extent = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        file.write_all_at(&block, offset(0))
            .map_err(io.err("probe write"))?;
        let one = time_us(|| file.sync_data()).map_err(io.err("probe fdatasync"))?;
        for i in 0..EXTENTS {
            file.write_all_at(&block, offset(i))
                .map_err(io.err("probe write"))?;
        }
        let many = time_us(|| file.sync_data()).map_err(io.err("probe fdatasync"))?;
        per_extent.push(((many - one) / (EXTENTS - 1) as f64).max(0.0));
    }
    Ok(median_us(per_extent))
}

/// Asks the kernel to drop `file`'s clean cached pages, so the next read reaches the filesystem.
#[cfg(target_os = "linux")]
fn drop_cached_pages(file: &File) -> std::io::Result<()> {
    // SAFETY: posix_fadvise only reads its integer arguments; the descriptor is owned by `file`.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(rc))
    }
}

/// macOS has no `posix_fadvise`; `F_NOCACHE` turns caching off for the descriptor instead, so
/// the probe's next read reaches the filesystem there too.
#[cfg(target_os = "macos")]
fn drop_cached_pages(file: &File) -> std::io::Result<()> {
    // SAFETY: fcntl with an integer argument on a descriptor owned by `file`.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_NOCACHE, 1) } == -1 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Elsewhere the read may come from the page cache.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn drop_cached_pages(_file: &File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_gives_a_positive_latency_per_class_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let lat = probe_dir(dir.path()).unwrap();
        for c in triebench_record::OpClass::ALL {
            assert!(*lat.get(c) > 0.0, "{c:?}: {lat:?}");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_flush_extent_probe_measures_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let per_extent = probe_flush_extent(dir.path()).unwrap();
        assert!(per_extent >= 0.0 && per_extent.is_finite(), "{per_extent}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_missing_directory_is_a_clear_error() {
        let err = probe_dir(Path::new("/nonexistent/triebench")).unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot create the latency probe's directory"),
            "{err}"
        );
    }

    #[test]
    fn the_median_is_the_middle_sample() {
        assert_eq!(median_us(vec![5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median_us(vec![]), 0.0);
    }
}
