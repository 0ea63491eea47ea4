//! Power-loss emulation: what a power cut would take away, and taking it away on request.
//!
//! In power-loss mode every change to a file's data (write, truncate, fallocate) that no fsync
//! or fdatasync of that file has covered yet is *unsynced*. A power cut ([`PowerLoss::cut`])
//! returns every file to its content at its last sync, and from then on the mount refuses every
//! change (`EIO`), as a machine without power would, until it is unmounted: whatever the
//! processes still had in flight, including pages of a shared `mmap` the kernel writes back
//! later, never reaches the backing directory.
//!
//! How: slowfs writes through to the backing file at once (so reads, sizes and `mmap` see the
//! data, and the kernel keeps no dirty pages of its own: slowfs has no FUSE write-back cache),
//! and keeps in its own memory, per file, the bytes each unsynced change overwrote (its
//! pre-image) and the size at the last sync. A sync of the file forgets them; a cut writes the
//! pre-images back newest first and truncates to the synced size, then fsyncs. After a cut the
//! backing directory holds exactly what was synced, which is what LazyFS's "clear cache" leaves
//! too (LazyFS keeps the new bytes in its cache instead of the old ones; the outcome is the
//! same).
//!
//! Metadata is **synced at once**: creating, renaming, linking and removing names, and
//! `mkdir`/`rmdir`, pass through and survive a cut. A real filesystem may lose a create or a
//! rename that no directory fsync covered; this emulation does not, so it cannot catch a missing
//! directory fsync. Data written through a handle opened with `O_SYNC`/`O_DSYNC` counts as
//! synced with the write, and so does everything unsynced before it in that file.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// A file's unsynced changes: enough to undo them.
#[derive(Debug)]
struct Unsynced {
    /// The file, reopened read-write for the undo.
    file: File,
    /// Its size at the last sync.
    synced_len: u64,
    /// (offset, bytes overwritten), oldest first; only bytes below `synced_len` are kept,
    /// since the cut truncates everything above.
    preimages: Vec<(u64, Vec<u8>)>,
}

/// The unsynced changes of every file, and whether power has been cut.
#[derive(Debug, Default)]
pub struct PowerLoss {
    files: Mutex<HashMap<(u64, u64), Unsynced>>,
    dead: AtomicBool,
    cuts: AtomicU64,
    unsynced_bytes: AtomicU64,
}

fn dead_error() -> io::Error {
    io::Error::from_raw_os_error(libc::EIO)
}

impl PowerLoss {
    /// A live mount with nothing unsynced.
    pub fn new() -> PowerLoss {
        PowerLoss::default()
    }

    /// Whether power has been cut (every change now fails with `EIO`).
    pub fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }

    /// `Err(EIO)` once power is cut: the check every changing request makes first.
    pub fn check_alive(&self) -> io::Result<()> {
        if self.is_dead() {
            Err(dead_error())
        } else {
            Ok(())
        }
    }

    /// How many cuts this mount has had (0 or 1: a cut mount stays dead).
    pub fn cuts(&self) -> u64 {
        self.cuts.load(Ordering::SeqCst)
    }

    /// Applies a change of `[offset, offset + len)` of `file` (`apply`), first keeping what it
    /// overwrites, and the file's synced size if this is its first change since a sync. `len`
    /// may reach past the end (an extension). Record and change happen under one lock a cut
    /// also takes, so a change is either wholly before a cut (and undone by it) or refused.
    pub fn change<T>(
        &self,
        file: &File,
        offset: u64,
        len: u64,
        apply: impl FnOnce() -> io::Result<T>,
    ) -> io::Result<T> {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        self.check_alive()?;
        let meta = file.metadata()?;
        let entry = match files.entry((meta.dev(), meta.ino())) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                // Reopen through /proc: read-write whatever the handle's mode, even if unlinked.
                let reopened = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
                v.insert(Unsynced {
                    file: reopened,
                    synced_len: meta.len(),
                    preimages: Vec::new(),
                })
            }
        };
        let end = offset.saturating_add(len).min(entry.synced_len);
        if offset < end {
            let mut old = vec![0u8; (end - offset) as usize];
            let mut filled = 0;
            while filled < old.len() {
                match entry
                    .file
                    .read_at(&mut old[filled..], offset + filled as u64)
                {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            // Past the current end (after an unsynced shrink) the old bytes are in an earlier
            // pre-image; zeros here are overwritten by it on undo.
            self.unsynced_bytes
                .fetch_add(old.len() as u64, Ordering::Relaxed);
            entry.preimages.push((offset, old));
        }
        apply()
    }

    /// Applies a truncation of `file` to `new_len` (`apply`), keeping what it removes.
    pub fn truncate<T>(
        &self,
        file: &File,
        new_len: u64,
        apply: impl FnOnce() -> io::Result<T>,
    ) -> io::Result<T> {
        let len = file.metadata()?.len();
        self.change(file, new_len, len.saturating_sub(new_len), apply)
    }

    /// Syncs `file` (`apply`, the backing fsync): its changes so far survive a cut. Refused
    /// after a cut, and never overlapping one, so a sync that reports success was not undone.
    pub fn sync<T>(&self, file: &File, apply: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        self.check_alive()?;
        let out = apply()?;
        let meta = file.metadata()?;
        files.remove(&(meta.dev(), meta.ino()));
        Ok(out)
    }

    /// Whether writes through `file` are synced as they happen (`O_SYNC`/`O_DSYNC`).
    pub fn is_sync_handle(file: &File) -> bool {
        // SAFETY: F_GETFL on an open descriptor only reads its flags.
        let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
        flags != -1 && flags & (libc::O_SYNC | libc::O_DSYNC) != 0
    }

    /// Cuts power: undoes every unsynced change (newest first), truncates each file to its
    /// synced size, syncs the backing files, and refuses every change from now on. Returns how
    /// many files were rolled back.
    pub fn cut(&self) -> io::Result<usize> {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        self.dead.store(true, Ordering::SeqCst);
        self.cuts.fetch_add(1, Ordering::SeqCst);
        let mut first_error = None;
        let count = files.len();
        for (_, unsynced) in files.drain() {
            let undo = || -> io::Result<()> {
                // The newest change first, so overlapping pre-images end at the oldest content.
                for (offset, old) in unsynced.preimages.iter().rev() {
                    unsynced.file.write_all_at(old, *offset)?;
                }
                unsynced.file.set_len(unsynced.synced_len)?;
                unsynced.file.sync_all()
            };
            if let Err(e) = undo() {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(count),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_restores_the_synced_content_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        let power = PowerLoss::new();
        power
            .change(&file, 2, 3, || file.write_all_at(b"abc", 2))
            .unwrap();
        power.sync(&file, || file.sync_data()).unwrap();
        power
            .change(&file, 8, 6, || file.write_all_at(b"XXXXXX", 8))
            .unwrap();
        power.truncate(&file, 4, || file.set_len(4)).unwrap();
        power
            .change(&file, 0, 1, || file.write_all_at(b"Z", 0))
            .unwrap();
        assert_eq!(power.cut().unwrap(), 1);
        assert_eq!(std::fs::read(&path).unwrap(), b"01abc56789");
        assert!(
            power.change(&file, 0, 1, || Ok(())).is_err(),
            "a cut mount refuses changes"
        );
        assert!(power.sync(&file, || Ok(())).is_err(), "and syncs");
    }
}
