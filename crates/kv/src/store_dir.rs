//! The directory an LMDB or SQLite store keeps its files in, made safe for a run as root.
//!
//! These backends open their files by name, so a link planted in their directory would turn
//! root's writes against another file. As root, a store directory is therefore used only when no
//! other user can write to it: it belongs to root, and neither its group nor others may write
//! to it (a sticky world-writable directory like `/tmp` is refused too: stores must not sit
//! directly in it). A missing directory is created with mode 0700. A run as another user is
//! unaffected: the directories it can write to are its own.
//!
//! Only the store's own directory is checked: its parents (`--dir` of the measuring commands,
//! `/dev/shm`) may be shared, since triebench makes a fresh private directory in them.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::Path;

use crate::error::{KvError, KvResult};

/// The mode of every file a store creates: its owner's alone.
pub(crate) const FILE_MODE: u32 = 0o600;

/// [`FILE_MODE`] as LMDB takes it (`mode_t`: 32 bits on Linux, 16 on macOS).
#[cfg(feature = "lmdb")]
pub(crate) const LMDB_FILE_MODE: lmdb_sys::mdb_mode_t = 0o600;

/// Narrows `file` (opened at `path`) to [`FILE_MODE`] when its group or others may read or
/// write it (a store file an older version made 0644); a file we may not chmod (another
/// user's) is left as it is.
#[cfg(feature = "sqlite-db")]
pub(crate) fn narrow_to_owner(file: &std::fs::File, path: &Path) -> KvResult<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = file
        .metadata()
        .map_err(|e| KvError::io("inspect", path, e))?;
    if meta.mode() & 0o077 != 0 {
        match file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE)) {
            Err(e) if e.kind() != std::io::ErrorKind::PermissionDenied => {
                return Err(KvError::io("make private", path, e))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Creates `dir` if it is missing, with mode 0700 (as root, a `dir` another user can write to
/// is refused, [`KvError::SharedStoreDir`]).
pub(crate) fn create_store_dir(dir: &Path) -> KvResult<()> {
    if !is_root() {
        return std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| KvError::io("create directory", dir, e));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {
            check_private(dir)?;
            // Only to report something that is not a directory as a non-root run would.
            std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| KvError::io("create directory", dir, e))?;
            // Checked after creating too: someone else may have made it first.
            check_private(dir)
        }
        Err(e) => Err(KvError::io("inspect", dir, e)),
    }
}

/// Fsyncs the directory `dir`, so the names in it survive a power cut (a new file's name is
/// durable only once its directory is synced). Opened without following a symlink.
pub(crate) fn sync_dir(dir: &Path) -> KvResult<()> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| KvError::io("sync directory", dir, e))
}

/// Refuses `dir` when a user other than root can write to it or replace it (see the module
/// docs). A symbolic link is refused when another user owns it, else its target is checked.
fn check_private(dir: &Path) -> KvResult<()> {
    let link = std::fs::symlink_metadata(dir).map_err(|e| KvError::io("inspect", dir, e))?;
    if link.file_type().is_symlink() && link.uid() != 0 {
        return Err(shared(
            dir,
            &link,
            "is a symbolic link owned by another user",
        ));
    }
    let meta = std::fs::metadata(dir).map_err(|e| KvError::io("inspect", dir, e))?;
    if meta.uid() != 0 {
        return Err(shared(dir, &meta, "belongs to another user"));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(shared(
            dir,
            &meta,
            "can be written by its group or by others",
        ));
    }
    Ok(())
}

fn shared(dir: &Path, meta: &std::fs::Metadata, why: &'static str) -> KvError {
    KvError::SharedStoreDir {
        dir: dir.to_path_buf(),
        owner: meta.uid(),
        mode: meta.mode() & 0o7777,
        why,
    }
}

/// Whether this process runs as root (effective uid 0).
fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}
