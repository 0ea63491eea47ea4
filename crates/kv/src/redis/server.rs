//! A managed `redis-server` child process, started for one store (or one test) and killed when
//! its guard drops.
//!
//! [`RedisServer::start`] finds `redis-server` on `PATH` and starts it in the foreground so
//! that only its owner can reach it:
//!
//! - no TCP listener at all (`--port 0`): clients use a unix socket, `redis.sock`, in a fresh
//!   private directory under `/tmp` (mode 0700, owned by the server's user; see
//!   `private_dir`), so no other local user can connect; on the project's VM a round trip
//!   over the socket also took ~20% less than over loopback TCP;
//! - a random password (`requirepass`, 32 bytes from the OS generator) as a second lock, written to a
//!   0600 config file in that private directory and passed by the file's path, never in argv
//!   (which `ps` shows to everyone) and never printed; [`RedisServer::url`] carries it for
//!   clients, and every message quotes the URL redacted;
//! - not as root: when this process is root the server runs as `triebench-srv` (`server_user`),
//!   started in its working directory through an open handle, so no parent of the directory
//!   under test needs to be opened up for it;
//! - `--dir .` and `--save ""` (never writes RDB snapshots); `--appendonly no` (`redis`), or
//!   `--appendonly yes --appendfsync always` (`redis-aof`) with the server's working directory
//!   `<dir>/appendonlydir` (created 0700 without following links, owned by the server's user)
//!   and `--appenddirname .`, so the AOF lands in `<dir>/appendonlydir/` on the filesystem
//!   under test, as Redis 7 lays it out, and a server started again on the same directory
//!   loads it. Its files are 0600 (umask 077).
//!
//! The server's stdout and stderr go to `<dir>/redis-server.log`, opened for append without
//! following a link (`dir_handle`: a planted link is refused with [`KvError::Planted`]), never
//! to the terminal; when the server fails to start, the error quotes the tail of that log.
//!
//! Dropping the guard (or calling [`RedisServer::kill`]) sends SIGKILL and reaps the process,
//! then removes the private directory with its socket and config. No shutdown save is needed:
//! `redis` keeps nothing, and `redis-aof` has fsynced every commit before acknowledging it.
//!
//! If the owning process is killed outright (SIGKILL, no drop), the server must not outlive it:
//! on Linux the server is started with `prctl(PR_SET_PDEATHSIG, SIGKILL)`, so the kernel kills it
//! when its parent goes, and the next server started removes the dead owner's private
//! directory. The "parent" there is the *thread* that forked the server, so servers are forked by
//! a launcher thread that lasts as long as the process (`child::spawn_lasting`): a store opened
//! on a short-lived thread keeps its server.

use std::ffi::OsStr;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::dir_handle::DirHandle;
use crate::error::{KvError, KvResult};
use crate::private_dir::PrivateDir;
use crate::server_user::{Launch, ServerUser};

/// Name of the executable looked up on `PATH`.
const EXECUTABLE: &str = "redis-server";
/// File in the data directory that receives the server's output.
pub(crate) const LOG_FILE: &str = "redis-server.log";
/// Sub-directory of the data directory holding the append-only files (`redis-aof`).
pub(crate) const AOF_DIR: &str = "appendonlydir";
/// The socket's name in the private directory.
const SOCKET: &str = "redis.sock";
/// The config file (with the password) in the private directory.
const CONFIG: &str = "redis.conf";
/// How long a starting server may take to answer at all.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a server that answers `LOADING` (replaying a large AOF) may take to become ready.
const LOAD_TIMEOUT: Duration = Duration::from_secs(600);
/// Pause between readiness probes.
const PROBE_INTERVAL: Duration = Duration::from_millis(10);
/// How much of the log an error quotes.
const LOG_TAIL_BYTES: u64 = 2048;

/// A running `redis-server` owned by this process; killed and reaped on drop.
pub struct RedisServer {
    child: Mutex<Child>,
    pid: u32,
    /// Carries the password: never printed (see the `Debug` impl).
    url: String,
    socket: PathBuf,
    dir: PathBuf,
    log: PathBuf,
    append_only: bool,
    user: Option<ServerUser>,
    /// The socket's directory, removed after the server is killed (fields drop after `drop`).
    private: PrivateDir,
}

impl std::fmt::Debug for RedisServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisServer")
            .field("pid", &self.pid)
            .field("socket", &self.socket)
            .field("dir", &self.dir)
            .field("append_only", &self.append_only)
            .finish_non_exhaustive()
    }
}

impl RedisServer {
    /// Starts `redis-server` (found on `PATH`) with its data in `dir`, created if missing;
    /// `append_only` selects the `redis-aof` configuration (`appendfsync always`).
    ///
    /// Fails with [`KvError::RedisServerMissing`] when there is no `redis-server` on `PATH`,
    /// [`KvError::Io`] when `dir` cannot be created, [`KvError::Planted`] when its log file or
    /// `appendonlydir` is a link or not ours, and [`KvError::RedisServerStart`] (quoting the
    /// server's log) when it exits or does not answer `PING` within 10 s.
    pub fn start(dir: &Path, append_only: bool) -> KvResult<RedisServer> {
        let path = std::env::var_os("PATH");
        Self::start_with_path(dir, append_only, path.as_deref())
    }

    /// [`RedisServer::start`] with the executable looked up in `path_var` (a `PATH`-style list)
    /// instead of the process's `PATH`: a seam for tests, which must not change the environment
    /// of a process whose other tests run in parallel.
    #[doc(hidden)]
    pub fn start_with_path(
        dir: &Path,
        append_only: bool,
        path_var: Option<&OsStr>,
    ) -> KvResult<RedisServer> {
        Self::start_inner(DirHandle::open_top(dir)?, append_only, path_var, "")
    }

    /// [`RedisServer::start`] with `extra` lines in its config file (0600 in its private
    /// directory: they may hold secrets, as a replica's `masterauth` does).
    /// The data directory is `data`, a directory already opened through a handle (a
    /// replica's `<dir>/replica`, made without following a link).
    pub(crate) fn start_with_config(
        data: DirHandle,
        append_only: bool,
        extra: &str,
    ) -> KvResult<RedisServer> {
        let path = std::env::var_os("PATH");
        Self::start_inner(data, append_only, path.as_deref(), extra)
    }

    fn start_inner(
        data: DirHandle,
        append_only: bool,
        path_var: Option<&OsStr>,
        extra: &str,
    ) -> KvResult<RedisServer> {
        let exe = find_executable(EXECUTABLE, path_var).ok_or(KvError::RedisServerMissing)?;
        let dir = data.path().to_path_buf();
        remove_stale_sockets(Path::new("/tmp"));
        let user = ServerUser::for_server(EXECUTABLE)?;
        let log = dir.join(LOG_FILE);
        let log_file = data.open_append(LOG_FILE, user)?;
        let log_start = log_file.metadata().map(|m| m.len()).unwrap_or(0);
        let stderr = log_file
            .try_clone()
            .map_err(|e| KvError::io("open log file", &log, e))?;
        let private = PrivateDir::create("redis", user)?;
        let password = crate::secret::random_secret()?;
        let config = private.write_secret_file(
            CONFIG,
            format!("requirepass {password}\n{extra}").as_bytes(),
            user,
        )?;
        let socket = private.path().join(SOCKET);
        // The server's working directory, given as a handle: where its AOF goes, or (without
        // one) the private directory, where it writes nothing.
        let cwd = if append_only {
            let aof = data.create_dir(AOF_DIR, user)?;
            if let Some(cut) = super::aof_tail::cut_damaged_tail(aof.path())? {
                let _ = writeln!(
                    &log_file,
                    "triebench: cut a damaged unacknowledged trailing transaction off {} \
                     (bytes {}..{}, kept in its .torn file)",
                    cut.file.display(),
                    cut.to,
                    cut.from
                );
            }
            aof.hand_files_to(user)?;
            aof
        } else {
            DirHandle::open(private.path())?
        };
        let mut command = Command::new(&exe);
        command
            .arg(&config)
            .args([
                "--port",
                "0",
                "--daemonize",
                "no",
                "--dir",
                ".",
                "--save",
                "",
            ])
            .arg("--unixsocket")
            .arg(&socket)
            .args(["--unixsocketperm", "700"]);
        if append_only {
            command.args([
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--appenddirname",
                ".",
            ]);
        } else {
            command.args(["--appendonly", "no"]);
        }
        crate::child::no_inherited_files(&mut command);
        Launch {
            user,
            death_signal: Some(libc::SIGKILL),
            cwd: Some(cwd.raw()),
            keep: None,
        }
        .apply(&mut command);
        command.stdin(Stdio::null()).stdout(log_file).stderr(stderr);
        let child = crate::child::spawn_lasting(command)
            .map_err(|e| KvError::RedisServerStart(format!("cannot run {}: {e}", exe.display())))?;
        drop(cwd);
        let server = RedisServer {
            pid: child.id(),
            child: Mutex::new(child),
            // The password in both places a Redis client may read it: the query (redis-rs 1)
            // and the userinfo (older redis-rs, as in Transact 0.3.7, which the comparison
            // runs on this server), with `localhost` as the host older clients require.
            url: format!(
                "redis+unix://:{password}@localhost{}?pass={password}",
                socket.display()
            ),
            socket,
            dir,
            log,
            append_only,
            user,
            private,
        };
        // On any failure below, dropping `server` kills and reaps the child.
        server.wait_ready(log_start)?;
        Ok(server)
    }

    /// Polls until the server answers `PING` and proves (by its process id) to be our child.
    fn wait_ready(&self, log_start: u64) -> KvResult<()> {
        let started = Instant::now();
        let mut deadline = started + START_TIMEOUT;
        let client = redis::Client::open(self.url.as_str()).map_err(|e| {
            KvError::RedisServerStart(format!("bad socket address {}: {e}", self.socket.display()))
        })?;
        loop {
            if let Some(status) = self.exit_status() {
                let tail = log_tail(&self.log, log_start);
                let what = format!("{EXECUTABLE} exited ({status}) before answering");
                // On a full disk it exits having written nothing, not even its log.
                let dir = self.log.parent().unwrap_or(&self.log);
                if let Some(full) = KvError::disk_full_if_low(dir, &what) {
                    return Err(full);
                }
                return Err(KvError::RedisServerStart(format!(
                    "{what}; log {}:\n{tail}",
                    self.log.display()
                )));
            }
            match probe(&client) {
                Probe::Ready(pid) if pid == self.pid => return Ok(()),
                Probe::Ready(other) => {
                    return Err(KvError::RedisServerStart(format!(
                        "the socket {} answered for process {other}, not for our server {}",
                        self.socket.display(),
                        self.pid
                    )))
                }
                Probe::Loading => deadline = started + LOAD_TIMEOUT,
                Probe::NotYet => {}
            }
            if Instant::now() >= deadline {
                let waited = deadline.duration_since(started).as_secs();
                return Err(KvError::RedisServerStart(format!(
                    "{} (pid {}) did not answer PING on {} within {waited} s; log {}:\n{}",
                    EXECUTABLE,
                    self.pid,
                    self.socket.display(),
                    self.log.display(),
                    log_tail(&self.log, log_start)
                )));
            }
            std::thread::sleep(PROBE_INTERVAL);
        }
    }

    /// The URL clients connect with,
    /// `redis+unix://:<password>@localhost<private dir>/redis.sock?pass=<password>` (both
    /// places clients of different redis-rs versions read a password from). It carries the
    /// server's password: pass it to a client, never print it (quote
    /// [`RedisServer::socket_path`], or the URL through [`crate::redis::redact`]).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's unix socket, in a directory only the server's user (and root) can enter.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// The private directory holding the socket (and the config file with the password).
    pub fn private_dir(&self) -> &Path {
        self.private.path()
    }

    /// The user id the server runs as: `triebench-srv`'s when this process is root, else ours.
    pub fn uid(&self) -> u32 {
        // SAFETY: geteuid has no preconditions.
        self.user
            .map_or_else(|| unsafe { libc::geteuid() }, |u| u.uid)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The server's data directory (canonical path), where the AOF lives (in
    /// `appendonlydir/`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that receives the server's output.
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// Whether the server runs with `appendonly yes` and `appendfsync always`.
    pub fn append_only(&self) -> bool {
        self.append_only
    }

    /// Whether the process is still running (it may have crashed or been killed).
    pub fn is_running(&self) -> bool {
        self.exit_status().is_none()
    }

    /// `Ok` while the server runs; otherwise an error naming its exit status and its log.
    pub fn check_running(&self) -> KvResult<()> {
        match self.exit_status() {
            None => Ok(()),
            Some(status) => Err(KvError::backend(
                "redis",
                format!(
                    "the managed {EXECUTABLE} (pid {}, socket {}) has exited ({status}); \
                     see its log {}",
                    self.pid,
                    self.socket.display(),
                    self.log.display()
                ),
            )),
        }
    }

    /// Kills the server (SIGKILL) and waits for it to exit. Killing a server that has already
    /// exited is not an error.
    pub fn kill(&self) -> KvResult<()> {
        let mut child = self.lock_child();
        if child
            .try_wait()
            .map_err(|e| KvError::backend("redis", format!("cannot query {EXECUTABLE}: {e}")))?
            .is_some()
        {
            return Ok(());
        }
        child.kill().map_err(|e| {
            KvError::backend(
                "redis",
                format!("cannot kill {EXECUTABLE} {}: {e}", self.pid),
            )
        })?;
        child.wait().map_err(|e| {
            KvError::backend(
                "redis",
                format!("cannot reap {EXECUTABLE} {}: {e}", self.pid),
            )
        })?;
        Ok(())
    }

    /// The exit status if the process has exited (reaping it), `None` while it runs.
    fn exit_status(&self) -> Option<ExitStatus> {
        // An error from waitpid means there is no such child any more: treat as exited.
        match self.lock_child().try_wait() {
            Ok(status) => status,
            Err(_) => Some(ExitStatus::default()),
        }
    }

    fn lock_child(&self) -> MutexGuard<'_, Child> {
        // The child handle stays valid even if a thread panicked while holding the lock.
        self.child
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let child = self
            .child
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = child.kill();
        let _ = child.wait();
        // The private directory, with the socket file a killed server leaves, goes next.
    }
}

/// How old a socket file nobody answers on must be before it is taken for a killed server's:
/// a server that is starting has bound its socket moments ago.
const STALE_SOCKET_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the socket files `triebench-redis-<port>.sock` in `dir` that servers of earlier
/// versions (which listened there) left when killed with their owner: a `triebench-redis-*.sock` older than
/// [`STALE_SOCKET_AGE`] that refuses connections. Best effort: what cannot be read or removed
/// is left.
fn remove_stale_sockets(dir: &Path) {
    #[cfg(unix)]
    {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with("triebench-redis-") && name.ends_with(".sock")) {
                continue;
            }
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_SOCKET_AGE);
            if !old {
                continue;
            }
            // Only an old file is tried: a connection to a live server is a client it serves.
            let path = entry.path();
            let refused = matches!(
                std::os::unix::net::UnixStream::connect(&path),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused
            );
            if refused {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// The result of one readiness probe.
enum Probe {
    /// Answered `PING`; carries the process id from `INFO server`.
    Ready(u32),
    /// Answered `LOADING`: replaying its AOF.
    Loading,
    /// Not listening yet (or not answering yet).
    NotYet,
}

fn probe(client: &redis::Client) -> Probe {
    let Ok(mut con) = client.get_connection_with_timeout(Duration::from_millis(500)) else {
        return Probe::NotYet;
    };
    if con.set_read_timeout(Some(Duration::from_secs(2))).is_err() {
        return Probe::NotYet;
    }
    match redis::cmd("PING").query::<String>(&mut con) {
        Ok(_) => {}
        Err(e) if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::BusyLoading) => {
            return Probe::Loading
        }
        Err(_) => return Probe::NotYet,
    }
    match redis::cmd("INFO").arg("server").query::<String>(&mut con) {
        Ok(info) => info
            .lines()
            .find_map(|line| line.strip_prefix("process_id:"))
            .and_then(|pid| pid.trim().parse().ok())
            .map_or(Probe::NotYet, Probe::Ready),
        Err(_) => Probe::NotYet,
    }
}

/// Finds `name` as an executable file in one of the directories of `path_var`.
pub(crate) fn find_executable(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The last few lines the server wrote to its log since `start` (best effort).
fn log_tail(log: &Path, start: u64) -> String {
    let read = || -> std::io::Result<String> {
        let mut file = std::fs::File::open(log)?;
        let len = file.metadata()?.len();
        let from = start.max(len.saturating_sub(LOG_TAIL_BYTES));
        file.seek(SeekFrom::Start(from))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).trim().to_string())
    };
    match read() {
        Ok(text) if text.is_empty() => "(the log is empty)".to_string(),
        Ok(text) => text,
        Err(e) => format!("(cannot read the log: {e})"),
    }
}
