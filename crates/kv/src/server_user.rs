//! Who a managed server runs as, and how its process is prepared between fork and exec.
//!
//! Neither managed server runs as root: PostgreSQL refuses to, and a root `redis-server` turns
//! any command a client can send (`SAVE`, `CONFIG SET`) into a root write. When this process is
//! root, the server runs as [`ServerUser`] `nobody`; otherwise as this process's own user.
//! [`Launch`] is what every managed child (redis-server, initdb, postgres) gets: a working
//! directory given as an open handle (so the unprivileged user needs no search permission on
//! the directory's parents, which therefore stay as they are), umask 077 (its files 0600, its
//! directories 0700), the user change, and a signal when its owner dies.

use std::os::fd::RawFd;
use std::process::Command;

use crate::error::{KvError, KvResult};

/// The unprivileged user a managed server runs as when this process is root.
pub(crate) const UNPRIVILEGED: &str = "nobody";

/// A user (and its primary group) to run a server as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ServerUser {
    /// User id.
    pub(crate) uid: libc::uid_t,
    /// Primary group id.
    pub(crate) gid: libc::gid_t,
}

impl ServerUser {
    /// `Some(nobody)` when this process is root (the server must drop to it), `None` when it
    /// runs as an unprivileged user already (the server runs as that user).
    pub(crate) fn for_server(server: &str) -> KvResult<Option<ServerUser>> {
        if !rustix::process::geteuid().is_root() {
            return Ok(None);
        }
        let name = c"nobody";
        // SAFETY: getpwnam with a valid C string; the record is read at once.
        let pw = unsafe { libc::getpwnam(name.as_ptr()) };
        if pw.is_null() {
            return Err(KvError::backend(
                "server",
                format!(
                    "running as root, and there is no user `{UNPRIVILEGED}` to run {server} as: \
                     create it (useradd -r {UNPRIVILEGED}) or run triebench as an ordinary user"
                ),
            ));
        }
        // SAFETY: pw is non-null and points to libc's static passwd record.
        let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
        Ok(Some(ServerUser { uid, gid }))
    }
}

/// How a managed child process is started.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Launch {
    /// Run as this user (this process is root), or as this process's user (`None`).
    pub(crate) user: Option<ServerUser>,
    /// Signal the child gets when the thread that spawned it exits (Linux), so a SIGKILLed
    /// owner leaves no server behind; elsewhere there is no such signal and it is unused.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) death_signal: Option<libc::c_int>,
    /// A directory descriptor the child changes into before dropping privileges.
    pub(crate) cwd: Option<RawFd>,
    /// A descriptor the child keeps open across exec (reached as `/proc/self/fd/<n>`).
    pub(crate) keep: Option<RawFd>,
}

impl Launch {
    /// Prepares `command` to start as this launch says; call after
    /// [`crate::child::no_inherited_files`] (closures run in order, and `keep` must survive
    /// it).
    pub(crate) fn apply(self, command: &mut Command) {
        use std::os::unix::process::CommandExt;
        // SAFETY: getpid is async-signal-safe and read before the fork.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
        // functions (fchdir, fcntl, umask, setgroups, setgid, setuid, prctl, getppid, _exit).
        unsafe {
            command.pre_exec(move || {
                if let Some(fd) = self.cwd {
                    if libc::fchdir(fd) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some(fd) = self.keep {
                    let flags = libc::fcntl(fd, libc::F_GETFD);
                    if flags == -1
                        || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) == -1
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                libc::umask(0o077);
                if let Some(u) = self.user {
                    if libc::setgroups(0, std::ptr::null()) == -1
                        || libc::setgid(u.gid) == -1
                        || libc::setuid(u.uid) == -1
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                // After the uid change, which clears the death signal.
                #[cfg(target_os = "linux")]
                if let Some(signal) = self.death_signal {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, signal, 0, 0, 0) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The parent may have died before prctl took effect.
                    if libc::getppid() != parent {
                        libc::_exit(1);
                    }
                }
                let _ = parent;
                Ok(())
            });
        }
        if self.user.is_some() {
            command.env("HOME", "/tmp");
        }
    }
}
