//! [`PrivateDir`]: a fresh directory under `/tmp`, mode 0700, owned by the server's user, that
//! holds a managed server's unix socket (and Redis's config file with its password).
//!
//! Only its owner (and root) can enter it, so only they can reach the socket, whatever the
//! socket's own mode. It is made fresh (`mkdtemp`, a random name) under `/tmp`, never under the
//! directory under test, where a path could be planted and which may be too long for a socket
//! address (~107 bytes) or on a filesystem that holds no sockets. It is removed when the
//! server goes; one left by an owner that was SIGKILLed (its name carries the owner's pid) is
//! removed by the next server started once that pid is gone.
//!
//! [`SERVER_DIRS_VAR`] moves them elsewhere (a directory of their own for one run, which then
//! sees and cleans only its own servers' directories, as the crash test's leak check does).

use std::path::{Path, PathBuf};

use crate::error::{KvError, KvResult};
use crate::server_user::ServerUser;

/// Where private directories are made by default: short, and on a filesystem that holds sockets.
const DEFAULT_PARENT: &str = "/tmp";

/// The environment variable naming another directory to make them in: an absolute path, short
/// enough for a socket address under it (at most 40 bytes), that the servers' user can enter.
pub const SERVER_DIRS_VAR: &str = "TRIEBENCH_SERVER_DIRS";

/// The longest [`SERVER_DIRS_VAR`] path: a socket's address (~107 bytes) must hold it, the
/// private directory's name (~40 bytes) and the socket's (~20).
const MAX_PARENT_LEN: usize = 40;

/// Where private directories are made: [`SERVER_DIRS_VAR`] when set, else `/tmp`.
fn parent() -> KvResult<PathBuf> {
    parent_from(std::env::var_os(SERVER_DIRS_VAR))
}

/// [`parent`] for the variable's value `var`.
fn parent_from(var: Option<std::ffi::OsString>) -> KvResult<PathBuf> {
    let Some(dir) = var.filter(|d| !d.is_empty()) else {
        return Ok(PathBuf::from(DEFAULT_PARENT));
    };
    let dir = PathBuf::from(dir);
    let why = if !dir.is_absolute() {
        "not an absolute path".to_string()
    } else if dir.as_os_str().len() > MAX_PARENT_LEN {
        format!("longer than {MAX_PARENT_LEN} bytes, too long for a unix socket's address under it")
    } else {
        return Ok(dir);
    };
    Err(KvError::BadServerDirs { path: dir, why })
}

/// A private directory for one server; removed on drop.
#[derive(Debug)]
pub(crate) struct PrivateDir {
    dir: tempfile::TempDir,
}

impl PrivateDir {
    /// Makes `/tmp/triebench-<kind>-<pid>-XXXXXX` (0700) for a server run by `owner` (the
    /// server's user when this process is root), after removing those of dead owners.
    pub(crate) fn create(kind: &str, owner: Option<ServerUser>) -> KvResult<PrivateDir> {
        let prefix = format!("triebench-{kind}-");
        let parent = parent()?;
        remove_orphans(&parent, &prefix);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{prefix}{}-", std::process::id()))
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(&parent)
            .map_err(|e| KvError::io("create a private directory in", &parent, e))?;
        if let Some(user) = owner {
            // A fresh directory with a random name in sticky /tmp: only root could swap it.
            std::os::unix::fs::chown(dir.path(), Some(user.uid), Some(user.gid))
                .map_err(|e| KvError::io("hand over to the server's user", dir.path(), e))?;
        }
        Ok(PrivateDir { dir })
    }

    /// The directory's path.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `name` in the directory, readable by its owner only (0600), handed to `owner`.
    #[cfg(feature = "redis-db")]
    pub(crate) fn write_secret_file(
        &self,
        name: &str,
        contents: &[u8],
        owner: Option<ServerUser>,
    ) -> KvResult<std::path::PathBuf> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let path = self.dir.path().join(name);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| KvError::io("create", &path, e))?;
        file.write_all(contents)
            .and_then(|()| file.sync_all())
            .map_err(|e| KvError::io("write", &path, e))?;
        if let Some(user) = owner {
            std::os::unix::fs::fchown(&file, Some(user.uid), Some(user.gid))
                .map_err(|e| KvError::io("hand over to the server's user", &path, e))?;
        }
        Ok(path)
    }
}

/// Removes the private directories (sockets, Redis's config file) of managed servers whose
/// owning process has died without dropping them (SIGKILL): what a crash-test round calls after
/// killing its child, so no round leaves a socket behind. Best effort; directories of live
/// owners are kept.
pub fn remove_orphaned_server_dirs() {
    let Ok(parent) = parent() else {
        return;
    };
    for kind in ["redis", "pg", "net"] {
        remove_orphans(&parent, &format!("triebench-{kind}-"));
    }
}

/// Removes the directories `<parent>/<prefix><pid>-*` whose owner `pid` no longer runs (best
/// effort: what cannot be read or removed stays).
fn remove_orphans(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let Some(pid) = rest
            .split_once('-')
            .and_then(|(pid, _)| pid.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if pid <= 0 || is_alive(pid) {
            continue;
        }
        // Not followed if it is a link: only our own directories are removed.
        let is_dir = entry
            .file_type()
            .is_ok_and(|t| t.is_dir() && !t.is_symlink());
        if is_dir {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether process `pid` exists (a zombie counts until reaped).
fn is_alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_tmp_unless_the_variable_names_a_short_absolute_path() {
        assert_eq!(parent_from(None).unwrap(), Path::new("/tmp"));
        assert_eq!(parent_from(Some("".into())).unwrap(), Path::new("/tmp"));
        assert_eq!(
            parent_from(Some("/tmp/own-servers".into())).unwrap(),
            Path::new("/tmp/own-servers")
        );
        let relative = parent_from(Some("servers".into())).unwrap_err().to_string();
        assert_eq!(
            relative,
            "TRIEBENCH_SERVER_DIRS=servers: not an absolute path; unset it to use /tmp"
        );
        let long = format!("/tmp/{}", "x".repeat(MAX_PARENT_LEN));
        let too_long = parent_from(Some(long.into())).unwrap_err().to_string();
        assert!(
            too_long.contains("too long for a unix socket"),
            "{too_long}"
        );
    }
}
