//! [`PrivateDir`]: a fresh directory under `/tmp`, mode 0700, owned by the server's user, that
//! holds a managed server's unix socket (and Redis's config file with its password).
//!
//! Only its owner (and root) can enter it, so only they can reach the socket, whatever the
//! socket's own mode. It is made fresh (`mkdtemp`, a random name) under `/tmp`, never under the
//! directory under test, where a path could be planted and which may be too long for a socket
//! address (~107 bytes) or on a filesystem that holds no sockets. It is removed when the
//! server goes; one left by an owner that was SIGKILLed (its name carries the owner's pid) is
//! removed by the next server started once that pid is gone.

use std::path::Path;

use crate::error::{KvError, KvResult};
use crate::server_user::ServerUser;

/// Where private directories are made: short, and on a filesystem that holds sockets.
const PARENT: &str = "/tmp";

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
        remove_orphans(Path::new(PARENT), &prefix);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{prefix}{}-", std::process::id()))
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(PARENT)
            .map_err(|e| KvError::io("create a private directory in", PARENT, e))?;
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
    for kind in ["redis", "pg", "net"] {
        remove_orphans(Path::new(PARENT), &format!("triebench-{kind}-"));
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
