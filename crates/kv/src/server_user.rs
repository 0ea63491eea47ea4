//! Who a managed server runs as, and how its process is prepared between fork and exec.
//!
//! Neither managed server runs as root: PostgreSQL refuses to, and a root `redis-server` turns
//! any command a client can send (`SAVE`, `CONFIG SET`) into a root write. When this process is
//! root, the server runs as [`ServerUser`] `triebench-srv`, a dedicated system account made on
//! first use (not the shared `nobody`, whose other processes could read a server's files);
//! otherwise as this process's own user.
//! [`Launch`] is what every managed child (redis-server, initdb, postgres) gets: a working
//! directory given as an open handle (so the unprivileged user needs no search permission on
//! the directory's parents, which therefore stay as they are), umask 077 (its files 0600, its
//! directories 0700), the user change, and a signal when its owner dies.

use std::os::fd::RawFd;
use std::process::Command;

use crate::error::{KvError, KvResult};

/// The dedicated unprivileged account the managed servers run as when this process is root.
/// Not the shared `nobody`: whatever else runs as `nobody` could read a server's config (the
/// Redis password) and its cluster. Made on first use when missing (`useradd --system`).
pub const SERVER_ACCOUNT_NAME: &str = "triebench-srv";
const SERVER_ACCOUNT: &std::ffi::CStr = c"triebench-srv";

/// A user (and its primary group) to run a server as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ServerUser {
    /// User id.
    pub(crate) uid: libc::uid_t,
    /// Primary group id.
    pub(crate) gid: libc::gid_t,
}

impl ServerUser {
    /// `Some(triebench-srv)` when this process is root (the server must drop to it; the
    /// account is made if missing), `None` when it runs as an unprivileged user already (the
    /// server runs as that user).
    pub(crate) fn for_server(server: &str) -> KvResult<Option<ServerUser>> {
        if !rustix::process::geteuid().is_root() {
            return Ok(None);
        }
        if let Some(user) = lookup(SERVER_ACCOUNT) {
            return Ok(Some(user));
        }
        // First use on this machine: the account is made once, a system account with no
        // home and no login shell. Two servers starting at once may both try; one wins.
        let made = std::process::Command::new("useradd")
            .args([
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                "--comment",
                "triebench managed servers",
                SERVER_ACCOUNT_NAME,
            ])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        lookup(SERVER_ACCOUNT).map(Some).ok_or_else(|| {
            KvError::backend(
                "server",
                format!(
                    "running as root, and there is no user `{SERVER_ACCOUNT_NAME}` to run {server} \
                     as, nor could it be made (useradd: {}): create it (useradd --system \
                     --user-group {SERVER_ACCOUNT_NAME}) or run triebench as an ordinary user",
                    match made {
                        Ok(status) => status.to_string(),
                        Err(e) => e.to_string(),
                    }
                ),
            )
        })
    }
}

/// The user and primary group of the account `name`, if it exists.
fn lookup(name: &std::ffi::CStr) -> Option<ServerUser> {
    // SAFETY: getpwnam with a valid C string; the record is read at once.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return None;
    }
    // SAFETY: pw is non-null and points to libc's static passwd record.
    let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
    Some(ServerUser { uid, gid })
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
