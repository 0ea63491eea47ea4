//! Makes a directory a command was given (`--dir`, `--out`, `NAME=DIR`, a file's folder) when
//! it is missing, the one way every command does it.
//!
//! The part of the path that exists is the user's own choice and is used as given (a symbolic
//! link there included, as [`std::fs::create_dir_all`] would). The missing part is made one
//! directory at a time through a handle on its parent (`mkdirat`, then `openat` with
//! `O_NOFOLLOW`), so a symbolic link that another user plants at a name while it is being made
//! (under a shared `/tmp`, say) is refused with an error naming it, never followed: the run
//! cannot be steered into a directory someone else chose. As root the directories made are
//! 0700 (SECURITY.md: a store directory no one else can write to), otherwise 0777 less the
//! umask. Anything that stops it (a regular file on the way, a read-only filesystem, no
//! permission) is one line naming the option, the directory and the part that failed.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use crate::error::MeasureError;

/// Makes `dir` (and its missing parents) if it does not exist; `label` names the argument in
/// the error (`--dir`, `--out`, `disk=DIR`). An existing `dir` must be a directory (or a link
/// to one).
pub fn make_dir(label: &str, dir: &Path) -> Result<(), MeasureError> {
    let fail = |reason: String| {
        MeasureError::Usage(format!(
            "{label}: cannot create the directory {}: {reason}",
            dir.display()
        ))
    };
    let dir_or_dot = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match std::fs::metadata(dir_or_dot) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(meta) if meta.is_file() => {
            return Err(fail("it is a file, not a directory".to_string()))
        }
        Ok(_) => return Err(fail("it exists and is not a directory".to_string())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {}
        Err(e) => return Err(fail(e.to_string())),
    }
    // The deepest ancestor that exists (a dangling link counts as existing: it is refused
    // below, as the user's own choice that is not a directory).
    let (base, missing) = split_existing(dir_or_dot);
    let base_dir = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base.as_path()
    };
    match std::fs::metadata(base_dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(fail(format!(
                "{} is a file, not a directory",
                base_dir.display()
            )))
        }
        Err(e) => return Err(fail(format!("{}: {e}", base_dir.display()))),
    }
    let handle = File::open(base_dir).map_err(|e| fail(format!("{}: {e}", base_dir.display())))?;
    create_below(handle, base_dir, &missing).map_err(|(at, reason)| {
        // The part that failed is named only when it is not the directory itself.
        if at.as_path() == dir_or_dot {
            fail(reason)
        } else {
            fail(format!("{}: {reason}", at.display()))
        }
    })
}

/// Splits `dir` into its deepest existing ancestor and the components below it that are
/// missing (`symlink_metadata`: a link is not followed to decide).
fn split_existing(dir: &Path) -> (PathBuf, Vec<&OsStr>) {
    let mut missing = Vec::new();
    let mut at = dir;
    loop {
        if at.as_os_str().is_empty() || std::fs::symlink_metadata(at).is_ok() {
            missing.reverse();
            return (at.to_path_buf(), missing);
        }
        match (at.parent(), at.components().next_back()) {
            (Some(parent), Some(Component::Normal(name))) => {
                missing.push(name);
                at = parent;
            }
            (Some(parent), Some(Component::ParentDir)) => {
                missing.push(OsStr::new(".."));
                at = parent;
            }
            (Some(parent), Some(Component::CurDir)) => at = parent,
            // The root or a prefix: it exists, or nothing can be made.
            _ => {
                missing.reverse();
                return (at.to_path_buf(), missing);
            }
        }
    }
}

/// Makes each of `names` in turn below the open directory `parent` (at `path`, for messages):
/// `mkdirat`, then `openat` with `O_NOFOLLOW | O_DIRECTORY`, so a name that is (or became) a
/// symbolic link or anything but a directory is refused, not followed. An error gives the
/// path that failed and why.
fn create_below(mut parent: File, path: &Path, names: &[&OsStr]) -> Result<(), (PathBuf, String)> {
    let mode: libc::mode_t = if is_root() { 0o700 } else { 0o777 };
    let mut path = path.to_path_buf();
    for name in names {
        path.push(name);
        let c = CString::new(name.as_bytes())
            .map_err(|_| (path.clone(), "the name holds a NUL byte".to_string()))?;
        if *name != OsStr::new("..") {
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            if unsafe { libc::mkdirat(parent.as_raw_fd(), c.as_ptr(), mode) } != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EEXIST) {
                    return Err((path, e.to_string()));
                }
            }
        }
        // SAFETY: as above; the result is checked.
        let fd = unsafe {
            libc::openat(
                parent.as_raw_fd(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            let e = io::Error::last_os_error();
            // With O_DIRECTORY, Linux answers ENOTDIR for a link too: the name is looked at
            // again (not followed), for the message only.
            let is_link =
                std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            let reason = match e.raw_os_error() {
                Some(libc::ELOOP | libc::ENOTDIR) if is_link => {
                    "a symbolic link appeared there while it was being made; refused, not \
                     followed (someone else may be writing there)"
                        .to_string()
                }
                Some(libc::ENOTDIR) => "it is not a directory".to_string(),
                _ => e.to_string(),
            };
            return Err((path, reason));
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        parent = unsafe { File::from_raw_fd(fd) };
    }
    Ok(())
}

/// Whether this process runs as root (effective uid 0).
fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_and_its_parents_are_made() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/../c/./d");
        make_dir("--dir", &dir).unwrap();
        assert!(tmp.path().join("a/c/d").is_dir());
        assert!(tmp.path().join("a/b").is_dir());
        // Again: an existing directory is left as it is.
        make_dir("--dir", &dir).unwrap();
    }

    #[test]
    fn a_path_under_a_file_is_one_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("file"), b"x").unwrap();
        let e = make_dir("--dir", &tmp.path().join("file/sub/dir"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--dir: cannot create the directory "), "{e}");
        assert!(e.contains("is a file, not a directory"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = make_dir("--out", &tmp.path().join("file")).unwrap_err();
        assert!(e.to_string().contains("is a file, not a directory"), "{e}");
    }

    #[test]
    fn a_link_planted_while_the_directory_is_made_is_refused() {
        // The race, played out in order: the path was found missing, then another user
        // plants a link at the name before it is made.
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("elsewhere");
        std::fs::create_dir(&target).unwrap();
        std::os::unix::fs::symlink(&target, tmp.path().join("new")).unwrap();
        let parent = File::open(tmp.path()).unwrap();
        let names = [OsStr::new("new"), OsStr::new("inside")];
        let (at, e) = create_below(parent, tmp.path(), &names).unwrap_err();
        assert_eq!(at, tmp.path().join("new"));
        assert!(e.contains("symbolic link"), "{e}");
        assert!(!target.join("inside").exists(), "the link was followed");
    }

    #[test]
    fn an_existing_link_given_by_the_user_is_used_as_given() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("real");
        std::fs::create_dir(&target).unwrap();
        std::os::unix::fs::symlink(&target, tmp.path().join("link")).unwrap();
        make_dir("--dir", &tmp.path().join("link/sub")).unwrap();
        assert!(target.join("sub").is_dir());
    }
}
