//! [`DirHandle`]: a directory opened once, whose entries the managed servers' files are
//! created and opened through (`openat`, `mkdirat`) without following symbolic links.
//!
//! The directory under test (`--dir`) may be writable by others (`/tmp/pg`, the README's own
//! example). A path under it that is resolved by name each time can be swapped for a symbolic
//! link to another file between runs; a store running as root would then append to, or hand
//! to the server's user, whatever the link names. So the directory is opened once and every
//! entry is reached relative to that handle with `O_NOFOLLOW`: a planted link, a hard link or
//! an entry of the wrong kind is refused with [`KvError::Planted`] naming the path, and the
//! handles returned are the objects that were checked (no second lookup by name).

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::error::{KvError, KvResult};
use crate::server_user::ServerUser;

/// An open directory and the path it was opened at (for messages).
#[derive(Debug)]
pub(crate) struct DirHandle {
    fd: OwnedFd,
    path: PathBuf,
}

impl DirHandle {
    /// Opens the directory `path` (itself resolved as given: it is the caller's own choice).
    pub(crate) fn open(path: &Path) -> KvResult<DirHandle> {
        let c = cstring(path)?;
        // SAFETY: `c` is a valid NUL-terminated path; the result is checked.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(KvError::io(
                "open directory",
                path,
                std::io::Error::last_os_error(),
            ));
        }
        Ok(DirHandle {
            // SAFETY: `fd` was just opened and is owned by nobody else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path: path.to_path_buf(),
        })
    }

    /// Creates the directory `path` (with its missing parents) if missing, resolves it to its
    /// canonical path and opens it: the top of a server's files (`--dir`, the caller's own
    /// choice, so it is resolved as given). Everything below it is reached through the handle.
    pub(crate) fn open_top(path: &Path) -> KvResult<DirHandle> {
        std::fs::create_dir_all(path).map_err(|e| KvError::io("create directory", path, e))?;
        let canonical = path
            .canonicalize()
            .map_err(|e| KvError::io("resolve directory", path, e))?;
        DirHandle::open(&canonical)
    }

    /// Opens the existing sub-directory `name` without following a link: `None` when there
    /// is none (or it is a link or not a directory: nothing is read through it).
    #[cfg(feature = "postgres-db")]
    pub(crate) fn open_existing_dir(&self, name: &str) -> Option<DirHandle> {
        let c = CString::new(name).ok()?;
        // SAFETY: valid directory descriptor and NUL-terminated name; the result is checked.
        let fd = unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return None;
        }
        Some(DirHandle {
            // SAFETY: `fd` was just opened and is owned by nobody else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path: self.path.join(name),
        })
    }

    /// The path the directory was opened at.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The raw descriptor (valid while `self` lives).
    pub(crate) fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Whether `name` exists in the directory as a regular file (not followed if a link).
    #[cfg(feature = "postgres-db")]
    pub(crate) fn has_file(&self, name: &str) -> bool {
        self.stat(name)
            .is_some_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFREG)
    }

    /// Creates the sub-directory `name` (mode 0700) if missing and opens it, refusing a
    /// symbolic link or anything but a directory there; with `owner`, a directory made here
    /// now is handed to that user (through the handle, so the object checked is the object
    /// chowned). An existing directory is never chowned: it must already belong to `owner`
    /// (or, without one, to us), else it is refused as planted.
    pub(crate) fn create_dir(&self, name: &str, owner: Option<ServerUser>) -> KvResult<DirHandle> {
        let path = self.path.join(name);
        let c = cstring(Path::new(name))?;
        // SAFETY: valid directory descriptor and NUL-terminated name.
        let created = unsafe { libc::mkdirat(self.raw(), c.as_ptr(), 0o700) } == 0;
        if !created {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EEXIST) {
                return Err(KvError::io("create directory", &path, e));
            }
        }
        // SAFETY: as above; the result is checked.
        let fd = unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP) | Some(libc::ENOTDIR) => self.planted(name, "a directory"),
                _ => KvError::io("open directory", &path, e),
            });
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        let dir = DirHandle {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path,
        };
        let st = fstat(dir.raw()).map_err(|e| KvError::io("stat directory", &dir.path, e))?;
        // A directory of another user (not us, not the server's user) was not made by us.
        if !owned_by_us_or(&st, owner) {
            return Err(KvError::Planted {
                path: dir.path,
                found: format!(
                    "a directory owned by uid {}, neither this user nor the server's",
                    st.st_uid
                ),
            });
        }
        if created {
            dir.hand_to(owner)?;
        } else if let Some(user) = owner {
            if st.st_uid != user.uid {
                return Err(KvError::Planted {
                    path: dir.path,
                    found: format!(
                        "a directory owned by uid {}, not by the server's user (uid {}); it \
                         was not made by this run, so it is not handed over",
                        st.st_uid, user.uid
                    ),
                });
            }
        }
        Ok(dir)
    }

    /// Opens `name` for appending, creating it (mode 0600) if missing; refuses a symbolic
    /// link, a file with other hard links, a file of a user other than us or `server` (an
    /// older version handed the PostgreSQL log to it), or anything but a regular file (a FIFO
    /// would block the open).
    pub(crate) fn open_append(&self, name: &str, server: Option<ServerUser>) -> KvResult<File> {
        let path = self.path.join(name);
        let (file, st) = self.open_no_follow(
            name,
            libc::O_WRONLY | libc::O_APPEND | libc::O_NOCTTY,
            "open log file",
        )?;
        let fd = file.as_raw_fd();
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(self.planted(name, "a regular file"));
        }
        if st.st_nlink > 1 {
            return Err(KvError::Planted {
                path,
                found: format!(
                    "a file with {} hard links (a link to another file)",
                    st.st_nlink
                ),
            });
        }
        if !owned_by_us_or(&st, server) {
            return Err(KvError::Planted {
                path,
                found: format!("a file owned by uid {}, not by this user", st.st_uid),
            });
        }
        // Blocking writes from here on (the flag only guarded the open against a FIFO).
        // SAFETY: fcntl on our own open descriptor.
        unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            if fl >= 0 {
                libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
            }
        }
        Ok(file)
    }

    /// Writes `name` in the directory (replacing its contents; created 0600 if missing),
    /// refusing a link there, and hands it to `owner` (when given) through the handle.
    #[cfg(feature = "postgres-db")]
    pub(crate) fn write_file(
        &self,
        name: &str,
        contents: &[u8],
        owner: Option<ServerUser>,
    ) -> KvResult<()> {
        use std::io::Write;
        let path = self.path.join(name);
        let (mut file, st) = self.open_no_follow(name, libc::O_WRONLY | libc::O_TRUNC, "write")?;
        if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_nlink > 1 {
            return Err(self.planted(name, "a regular file with one link"));
        }
        file.write_all(contents)
            .and_then(|()| file.sync_all())
            .map_err(|e| KvError::io("write", &path, e))?;
        if let Some(user) = owner {
            std::os::unix::fs::fchown(&file, Some(user.uid), Some(user.gid))
                .map_err(|e| KvError::io("hand over to the server's user", &path, e))?;
        }
        Ok(())
    }

    /// Hands every regular file directly in the directory to `owner` (when given), each opened
    /// without following a link and skipped if it has other hard links: what an older version
    /// left owned by root in a directory the server's user now writes (Redis's AOF files).
    #[cfg(feature = "redis-db")]
    pub(crate) fn hand_files_to(&self, owner: Option<ServerUser>) -> KvResult<()> {
        let Some(user) = owner else {
            return Ok(());
        };
        let listing = PathBuf::from(format!("/proc/self/fd/{}", self.raw()));
        let entries =
            std::fs::read_dir(&listing).map_err(|e| KvError::io("list", &self.path, e))?;
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let Ok(c) = CString::new(name.as_str()) else {
                continue;
            };
            let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
            // SAFETY: valid directory descriptor and NUL-terminated name; checked below.
            let fd = unsafe { libc::openat(self.raw(), c.as_ptr(), flags) };
            if fd < 0 {
                continue;
            }
            // SAFETY: `fd` was just opened and is owned by nobody else.
            let file = unsafe { File::from_raw_fd(fd) };
            let Ok(st) = fstat(fd) else {
                continue;
            };
            if st.st_mode & libc::S_IFMT != libc::S_IFREG
                || st.st_nlink > 1
                || st.st_uid == user.uid
            {
                continue;
            }
            std::os::unix::fs::fchown(&file, Some(user.uid), Some(user.gid)).map_err(|e| {
                KvError::io("hand over to the server's user", self.path.join(&name), e)
            })?;
        }
        Ok(())
    }

    /// Hands the directory itself to `owner` (when given), through the handle.
    pub(crate) fn hand_to(&self, owner: Option<ServerUser>) -> KvResult<()> {
        let Some(user) = owner else {
            return Ok(());
        };
        // SAFETY: fchown on our own open descriptor.
        if unsafe { libc::fchown(self.raw(), user.uid, user.gid) } != 0 {
            return Err(KvError::io(
                "hand over to the server's user",
                &self.path,
                std::io::Error::last_os_error(),
            ));
        }
        Ok(())
    }

    fn stat(&self, name: &str) -> Option<libc::stat> {
        let c = CString::new(name).ok()?;
        // SAFETY: plain old data the kernel fills.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor, NUL-terminated name, valid out-pointer.
        let rc =
            unsafe { libc::fstatat(self.raw(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
        (rc == 0).then_some(st)
    }

    /// The [`KvError::Planted`] for `name`, saying what was found instead of `expected`.
    /// Opens (creating it 0600 if missing) `name` in the directory with `flags` added to
    /// `O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`, and stats what was opened: a link
    /// there, or a FIFO or socket, is refused as planted; other failures are `action` errors.
    fn open_no_follow(
        &self,
        name: &str,
        flags: libc::c_int,
        action: &'static str,
    ) -> KvResult<(File, libc::stat)> {
        let path = self.path.join(name);
        let c = cstring(Path::new(name))?;
        let flags = flags | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        // SAFETY: valid directory descriptor and NUL-terminated name; the result is checked.
        let fd = unsafe { libc::openat(self.raw(), c.as_ptr(), flags, 0o600 as libc::c_uint) };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP) | Some(libc::ENXIO) => self.planted(name, "a regular file"),
                _ => KvError::io(action, &path, e),
            });
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        let file = unsafe { File::from_raw_fd(fd) };
        let st = fstat(fd).map_err(|e| KvError::io(action, &path, e))?;
        Ok((file, st))
    }

    fn planted(&self, name: &str, expected: &str) -> KvError {
        let found = match self.stat(name) {
            Some(st) if st.st_mode & libc::S_IFMT == libc::S_IFLNK => {
                let target = std::fs::read_link(self.path.join(name))
                    .map(|t| format!(" (to {})", t.display()))
                    .unwrap_or_default();
                format!("a symbolic link{target} where {expected} belongs")
            }
            Some(_) => format!("something other than {expected}"),
            None => format!("not {expected}"),
        };
        KvError::Planted {
            path: self.path.join(name),
            found,
        }
    }
}

/// Whether `st` belongs to this process's user or to `other`.
fn owned_by_us_or(st: &libc::stat, other: Option<ServerUser>) -> bool {
    let me = rustix::process::geteuid().as_raw();
    st.st_uid == me || other.is_some_and(|u| u.uid == st.st_uid)
}

fn fstat(fd: RawFd) -> std::io::Result<libc::stat> {
    // SAFETY: plain old data the kernel fills.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor and out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(st)
}

fn cstring(path: &Path) -> KvResult<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        KvError::io(
            "use path",
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "path contains a NUL byte"),
        )
    })
}
