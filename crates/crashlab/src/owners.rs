//! Owners and modes of a materialised crash state: the op log records names and bytes, not who
//! owns a file or its permission bits, yet a power cut keeps both. A managed PostgreSQL runs as
//! `triebench-srv` when triebench is root and refuses a cluster directory that is not 0700 and its own,
//! so each state gets back what the recording left: every path that exists in the recording's
//! backing directory takes that path's owner and mode; a path the recording no longer has (a
//! file a later step removed) takes its parent's owner, 0700 for a directory, 0600 for a file.
//! Nothing is followed: symlinks are neither read through nor changed.

use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// Gives every entry under `state` the owner and mode of the same path under `recorded`.
///
/// # Errors
/// A walk, chown or chmod that fails.
pub(crate) fn restore_owners(state: &Path, recorded: &Path) -> io::Result<()> {
    let parent = fs::symlink_metadata(state)?;
    walk(state, recorded, (parent.uid(), parent.gid()))
}

fn walk(state: &Path, recorded: &Path, parent_owner: (u32, u32)) -> io::Result<()> {
    for entry in fs::read_dir(state)? {
        let entry = entry?;
        let path = entry.path();
        let meta = fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            continue;
        }
        let twin = recorded.join(entry.file_name());
        let (owner, mode) = match fs::symlink_metadata(&twin) {
            Ok(m) if m.file_type().is_dir() == meta.is_dir() && !m.file_type().is_symlink() => {
                ((m.uid(), m.gid()), m.mode() & 0o7777)
            }
            _ => (parent_owner, if meta.is_dir() { 0o700 } else { 0o600 }),
        };
        if (meta.uid(), meta.gid()) != owner {
            std::os::unix::fs::lchown(&path, Some(owner.0), Some(owner.1))?;
        }
        if meta.mode() & 0o7777 != mode {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode))?;
        }
        if meta.is_dir() {
            walk(&path, &twin, owner)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_come_from_the_recording_and_new_names_from_their_parent() {
        let rec = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        fs::create_dir(rec.path().join("d")).unwrap();
        fs::set_permissions(rec.path().join("d"), fs::Permissions::from_mode(0o750)).unwrap();
        fs::write(rec.path().join("d/f"), b"x").unwrap();
        fs::set_permissions(rec.path().join("d/f"), fs::Permissions::from_mode(0o640)).unwrap();
        fs::create_dir(state.path().join("d")).unwrap();
        fs::write(state.path().join("d/f"), b"y").unwrap();
        fs::write(state.path().join("d/gone"), b"z").unwrap();
        restore_owners(state.path(), rec.path()).unwrap();
        let mode = |p: &str| fs::symlink_metadata(state.path().join(p)).unwrap().mode() & 0o7777;
        assert_eq!(mode("d"), 0o750);
        assert_eq!(mode("d/f"), 0o640);
        assert_eq!(mode("d/gone"), 0o600);
    }
}
