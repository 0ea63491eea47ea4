//! Copying and reading run folders safely: plain files and directories only, never through a
//! symbolic link, never a FIFO, socket or device, with a bound on what is read.
//!
//! A run folder (or a criterion directory) may come from another machine or another user: a
//! link in it to a file only the reader can read (`/etc/shadow`, as root) would otherwise come
//! out as a readable copy in a report that travels with it, and a FIFO would make the reader
//! wait for ever. So every entry is looked at without following it (`lstat`), anything but a
//! regular file or a directory is refused with one line naming it ([`CopyError::NotPlain`]), and
//! what passes is opened with `O_NOFOLLOW | O_NONBLOCK` and checked again on the open
//! descriptor (the same inode as looked at, still a regular file): an entry swapped for a link
//! or a FIFO in between is refused too. On Linux each directory's entries are reached through
//! the directory's open descriptor (`/proc/self/fd/N/name`), so no link is followed at any
//! depth. Each file read is bounded ([`Limits`]): a larger one is refused, not truncated.
//!
//! [`copy_tree`] copies a directory (report's `copy_run`), [`copy_file`] one file
//! (`export-run`), [`read_text`] reads one file (the report's readers).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// How much one copy or read may take in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes read from one file (1 GiB): a larger file is refused.
    pub file_bytes: u64,
    /// The most bytes read in all by one [`copy_tree`] (16 GiB).
    pub total_bytes: u64,
    /// The most entries (files and directories) one [`copy_tree`] visits (1,000,000).
    pub entries: u64,
    /// The deepest nesting of directories one [`copy_tree`] enters (64).
    pub depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            file_bytes: 1 << 30,
            total_bytes: 16 << 30,
            entries: 1_000_000,
            depth: 64,
        }
    }
}

/// The most bytes [`read_text`] reads from one file (256 MiB): run records and sidecars are far
/// smaller.
pub const READ_LIMIT: u64 = 256 << 20;

/// Why a copy or read was refused or failed; each names the entry.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The entry is not a regular file or a directory.
    #[error(
        "{}: is {kind}; only plain files and directories are read or copied (never through \
         a link, never a FIFO, socket or device)",
        path.display()
    )]
    NotPlain {
        /// The entry.
        path: PathBuf,
        /// What it is (`a symbolic link`, `a FIFO`, ...).
        kind: &'static str,
    },
    /// A file is larger than [`Limits::file_bytes`].
    #[error("{}: larger than {limit} bytes, the most read from one file", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// The bound.
        limit: u64,
    },
    /// A copy would read more than one of the other [`Limits`].
    #[error("{}: the copy would take in more than {limit} {what}", path.display())]
    TooMuch {
        /// The entry at which the bound was reached.
        path: PathBuf,
        /// The bound.
        limit: u64,
        /// What was counted (`bytes`, `entries`, `levels of directories`).
        what: &'static str,
    },
    /// The OS refused an operation.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done (`read`, `create`, ...).
        action: &'static str,
        /// The entry.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

impl From<CopyError> for io::Error {
    /// An `io::Error` whose message is the [`CopyError`]'s line; `NotFound` stays `NotFound`.
    fn from(e: CopyError) -> io::Error {
        let kind = match &e {
            CopyError::Io { source, .. } => source.kind(),
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e)
    }
}

/// Reads the plain file `path` as UTF-8 text, at most [`READ_LIMIT`] bytes; a link, FIFO,
/// socket or device is refused (see the module's notes). A drop-in for
/// `std::fs::read_to_string` in readers of files others may have made: its error is an
/// `io::Error` whose message names the file and why (`NotFound` when missing).
pub fn read_text(path: &Path) -> io::Result<String> {
    let bytes = read_bytes(path, READ_LIMIT)?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Reads the plain file `path` (as [`read_text`]), at most `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, CopyError> {
    let meta = look(path)?;
    plain_kind(path, &meta)?;
    let (mut file, _) = open_checked(path, path, &meta)?;
    let mut bytes = Vec::new();
    read_bounded(&mut file, path, limit, &mut bytes)?;
    Ok(bytes)
}

/// Copies the plain file `from` to `to` (created or replaced, mode 0644 less the umask),
/// refusing anything but a regular file and a file over [`Limits::file_bytes`]; returns the
/// bytes copied.
pub fn copy_file(from: &Path, to: &Path) -> Result<u64, CopyError> {
    let meta = look(from)?;
    plain_kind(from, &meta)?;
    if meta.is_dir() {
        return Err(CopyError::NotPlain {
            path: from.to_path_buf(),
            kind: "a directory where a file was expected",
        });
    }
    copy_one(from, from, &meta, to, Limits::default().file_bytes)
}

/// Copies the directory `from` into `into` (created if missing; existing files in it are
/// replaced), every entry's name passed through `rename(source directory, name)` first.
/// Anything but plain files and directories is refused (the copy stops there; what was copied
/// before stays, for the caller to remove with its fresh folder), and `limits` bound it.
pub fn copy_tree(
    from: &Path,
    into: &Path,
    limits: Limits,
    rename: &mut dyn FnMut(&Path, &OsStr) -> OsString,
) -> Result<(), CopyError> {
    let meta = look(from)?;
    if !meta.is_dir() {
        plain_kind(from, &meta)?;
        return Err(CopyError::NotPlain {
            path: from.to_path_buf(),
            kind: "a file where a directory was expected",
        });
    }
    let mut left = Budget {
        bytes: limits.total_bytes,
        entries: limits.entries,
    };
    copy_dir(from, from, &meta, into, limits, 0, &mut left, rename)
}

/// What a [`copy_tree`] may still take in.
struct Budget {
    bytes: u64,
    entries: u64,
}

/// Copies directory `shown` (opened at `open_path`, looked at as `meta`) into `into`.
#[allow(clippy::too_many_arguments)]
fn copy_dir(
    shown: &Path,
    open_path: &Path,
    meta: &Metadata,
    into: &Path,
    limits: Limits,
    depth: usize,
    left: &mut Budget,
    rename: &mut dyn FnMut(&Path, &OsStr) -> OsString,
) -> Result<(), CopyError> {
    if depth > limits.depth {
        return Err(CopyError::TooMuch {
            path: shown.to_path_buf(),
            limit: limits.depth as u64,
            what: "levels of directories",
        });
    }
    let dir = open_no_follow(open_path, shown, libc::O_DIRECTORY)?;
    same_object(shown, meta, &dir)?;
    fs::create_dir_all(into).map_err(|e| io_err("create", into, e))?;
    let listing = through(&dir, open_path);
    let mut names: Vec<OsString> = fs::read_dir(&listing)
        .map_err(|e| io_err("list", shown, e))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<io::Result<_>>()
        .map_err(|e| io_err("list", shown, e))?;
    names.sort();
    for name in names {
        let child_shown = shown.join(&name);
        left.entries = left.entries.checked_sub(1).ok_or(CopyError::TooMuch {
            path: child_shown.clone(),
            limit: limits.entries,
            what: "entries",
        })?;
        let child_open = listing.join(&name);
        let child_meta = look_as(&child_open, &child_shown)?;
        plain_kind(&child_shown, &child_meta)?;
        let target = into.join(rename(shown, &name));
        if child_meta.is_dir() {
            copy_dir(
                &child_shown,
                &child_open,
                &child_meta,
                &target,
                limits,
                depth + 1,
                left,
                rename,
            )?;
        } else {
            let limit = limits.file_bytes.min(left.bytes);
            let copied =
                copy_one(&child_shown, &child_open, &child_meta, &target, limit).map_err(|e| {
                    match e {
                        CopyError::FileTooLarge { path, .. } if limit < limits.file_bytes => {
                            CopyError::TooMuch {
                                path,
                                limit: limits.total_bytes,
                                what: "bytes",
                            }
                        }
                        e => e,
                    }
                })?;
            left.bytes -= copied.min(left.bytes);
        }
    }
    Ok(())
}

/// Copies the regular file `shown` (opened at `open_path`, looked at as `meta`) to `to`.
fn copy_one(
    shown: &Path,
    open_path: &Path,
    meta: &Metadata,
    to: &Path,
    limit: u64,
) -> Result<u64, CopyError> {
    let (mut file, len) = open_checked(open_path, shown, meta)?;
    if len > limit {
        return Err(CopyError::FileTooLarge {
            path: shown.to_path_buf(),
            limit,
        });
    }
    let mut out = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .mode(0o644)
        .open(to)
        .map_err(|e| io_err("create", to, e))?;
    let mut copied = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(|e| io_err("read", shown, e))?;
        if n == 0 {
            break;
        }
        copied += n as u64;
        if copied > limit {
            return Err(CopyError::FileTooLarge {
                path: shown.to_path_buf(),
                limit,
            });
        }
        out.write_all(&buf[..n])
            .map_err(|e| io_err("write", to, e))?;
    }
    Ok(copied)
}

/// Reads all of `file` into `bytes`, refusing more than `limit`.
fn read_bounded(
    file: &mut File,
    shown: &Path,
    limit: u64,
    bytes: &mut Vec<u8>,
) -> Result<(), CopyError> {
    file.take(limit.saturating_add(1))
        .read_to_end(bytes)
        .map_err(|e| io_err("read", shown, e))?;
    if bytes.len() as u64 > limit {
        return Err(CopyError::FileTooLarge {
            path: shown.to_path_buf(),
            limit,
        });
    }
    Ok(())
}

/// Opens the regular file at `open_path` without following a link or blocking on a FIFO,
/// checks it is the object `meta` describes, and returns it (blocking again) with its length.
fn open_checked(open_path: &Path, shown: &Path, meta: &Metadata) -> Result<(File, u64), CopyError> {
    let file = open_no_follow(open_path, shown, 0)?;
    let opened = same_object(shown, meta, &file)?;
    if !opened.is_file() {
        plain_kind(shown, &opened)?;
    }
    Ok((file, opened.len()))
}

/// Opens `open_path` read-only with `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY` and `extra`; a link
/// there is [`CopyError::NotPlain`].
fn open_no_follow(open_path: &Path, shown: &Path, extra: libc::c_int) -> Result<File, CopyError> {
    OpenOptions::new()
        .read(true)
        .custom_flags(
            libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC | extra,
        )
        .open(open_path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => CopyError::NotPlain {
                path: shown.to_path_buf(),
                kind: "a symbolic link",
            },
            _ => io_err("open", shown, e),
        })
}

/// The opened object's metadata, refused unless it is the inode `meta` described (an entry
/// swapped between the look and the open).
fn same_object(shown: &Path, meta: &Metadata, file: &File) -> Result<Metadata, CopyError> {
    let opened = file.metadata().map_err(|e| io_err("stat", shown, e))?;
    if opened.dev() != meta.dev() || opened.ino() != meta.ino() {
        return Err(CopyError::NotPlain {
            path: shown.to_path_buf(),
            kind: "an entry that changed while it was opened",
        });
    }
    Ok(opened)
}

/// `lstat` of `path`.
fn look(path: &Path) -> Result<Metadata, CopyError> {
    look_as(path, path)
}

fn look_as(open_path: &Path, shown: &Path) -> Result<Metadata, CopyError> {
    fs::symlink_metadata(open_path).map_err(|e| io_err("read", shown, e))
}

/// `Ok` for a regular file or a directory, else [`CopyError::NotPlain`] naming what it is.
fn plain_kind(shown: &Path, meta: &Metadata) -> Result<(), CopyError> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let kind = if t.is_file() || t.is_dir() {
        return Ok(());
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_char_device() {
        "a character device"
    } else {
        "not a regular file or directory"
    };
    Err(CopyError::NotPlain {
        path: shown.to_path_buf(),
        kind,
    })
}

/// The path that reaches the entries of the open directory `dir` through its descriptor
/// (Linux: `/proc/self/fd/N`), else `fallback`.
fn through(dir: &File, fallback: &Path) -> PathBuf {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let proc = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        if proc.is_dir() {
            return proc;
        }
    }
    let _ = dir;
    fallback.to_path_buf()
}

fn io_err(action: &'static str, path: &Path, source: io::Error) -> CopyError {
    CopyError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(_: &Path, n: &OsStr) -> OsString {
        n.to_os_string()
    }

    #[test]
    fn copies_plain_files_and_directories() {
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("a/b")).unwrap();
        fs::write(src.path().join("a/b/f.json"), "{}").unwrap();
        fs::write(src.path().join("top"), "x").unwrap();
        let dst = tempfile::tempdir().unwrap();
        copy_tree(
            src.path(),
            &dst.path().join("c"),
            Limits::default(),
            &mut keep,
        )
        .unwrap();
        assert_eq!(fs::read(dst.path().join("c/a/b/f.json")).unwrap(), b"{}");
        assert_eq!(fs::read(dst.path().join("c/top")).unwrap(), b"x");
    }

    #[test]
    fn refuses_a_link_a_fifo_and_a_large_file() {
        let src = tempfile::tempdir().unwrap();
        fs::write(src.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(src.path().join("secret"), src.path().join("link")).unwrap();
        let dst = tempfile::tempdir().unwrap();
        let e = copy_tree(src.path(), dst.path(), Limits::default(), &mut keep).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        fs::remove_file(src.path().join("link")).unwrap();
        let limits = Limits {
            file_bytes: 0,
            ..Limits::default()
        };
        let e = copy_tree(src.path(), dst.path(), limits, &mut keep).unwrap_err();
        assert!(matches!(e, CopyError::FileTooLarge { .. }), "{e}");
        let e = read_bytes(&src.path().join("secret"), 0).unwrap_err();
        assert!(matches!(e, CopyError::FileTooLarge { .. }), "{e}");
    }
}
