//! A managed `redis-server` child process, started for one store (or one test) and killed when
//! its guard drops.
//!
//! [`RedisServer::start`] finds `redis-server` on `PATH`, picks a free loopback port, and starts
//! the server in the foreground with its data directory (`--dir`) set to the directory under
//! test, so the append-only file of the `redis-aof` profile lands on the filesystem being
//! measured. Options passed:
//!
//! - `--bind 127.0.0.1 --port <free port> --daemonize no`
//! - `--unixsocket /tmp/triebench-redis-<port>.sock --unixsocketperm 700`, the address clients
//!   use ([`RedisServer::url`]): on the project's VM a round trip over the Unix socket took
//!   ~20% less than over loopback TCP, for the same commands. The socket is not in the
//!   directory under test, whose filesystem (FUSE, NFS) may not hold sockets and which no byte
//!   of a round trip touches; without a writable `/tmp` clients use the TCP port. A server
//!   killed with its owner (a crash test's child) leaves its socket file behind; the next server
//!   started removes such files (older than a minute, refusing connections).
//! - `--dir <dir> --save ""` (never writes RDB snapshots)
//! - `--appendonly no` (`redis`), or `--appendonly yes --appendfsync always` (`redis-aof`; Redis 7
//!   keeps the AOF in `<dir>/appendonlydir/`, and a server started again on the same directory
//!   loads it).
//!
//! The server's stdout and stderr go to `<dir>/redis-server.log` (appended), never to the
//! terminal; when the server fails to start, the error quotes the tail of that log.
//!
//! Dropping the guard (or calling [`RedisServer::kill`]) sends SIGKILL and reaps the process. No
//! shutdown save is needed: `redis` keeps nothing, and `redis-aof` has fsynced every commit
//! before acknowledging it.
//!
//! If the owning process is killed outright (SIGKILL, no drop), the server must not outlive it:
//! on Linux the server is started with `prctl(PR_SET_PDEATHSIG, SIGKILL)`, so the kernel kills it
//! when its parent goes. Mind what "parent" means there: the *thread* that spawned it. A server
//! started from a short-lived thread is killed when that thread exits, so start servers from a
//! thread that lives as long as the store (the main thread, or the one that owns the store). On
//! other systems a server whose owner is SIGKILLed keeps running until stopped by the PID in its
//! log.

use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::{KvError, KvResult};

/// Name of the executable looked up on `PATH`.
const EXECUTABLE: &str = "redis-server";
/// File in the data directory that receives the server's output.
pub(crate) const LOG_FILE: &str = "redis-server.log";
/// How long a starting server may take to answer at all.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a server that answers `LOADING` (replaying a large AOF) may take to become ready.
const LOAD_TIMEOUT: Duration = Duration::from_secs(600);
/// How many ports to try when another process takes the chosen port first.
const PORT_ATTEMPTS: usize = 5;
/// Pause between readiness probes.
const PROBE_INTERVAL: Duration = Duration::from_millis(10);
/// How much of the log an error quotes.
const LOG_TAIL_BYTES: u64 = 2048;

/// A running `redis-server` owned by this process; killed and reaped on drop.
#[derive(Debug)]
pub struct RedisServer {
    child: Mutex<Child>,
    pid: u32,
    port: u16,
    url: String,
    socket: Option<PathBuf>,
    dir: PathBuf,
    log: PathBuf,
    append_only: bool,
}

/// Why one attempt to start the server failed.
enum Attempt {
    /// Another process took the port between choosing it and the server binding it.
    PortTaken(String),
    /// Anything else: give up.
    Failed(KvError),
}

impl RedisServer {
    /// Starts `redis-server` (found on `PATH`) with its data in `dir`, created if missing;
    /// `append_only` selects the `redis-aof` configuration (`appendfsync always`).
    ///
    /// Fails with [`KvError::RedisServerMissing`] when there is no `redis-server` on `PATH`,
    /// [`KvError::Io`] when `dir` cannot be created, and [`KvError::RedisServerStart`] (quoting
    /// the server's log) when it exits or does not answer `PING` within 10 s.
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
        let exe = find_executable(EXECUTABLE, path_var).ok_or(KvError::RedisServerMissing)?;
        std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
        let dir = dir
            .canonicalize()
            .map_err(|e| KvError::io("resolve directory", dir, e))?;
        let mut last_race = String::new();
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port()?;
            match Self::spawn(&exe, &dir, port, append_only) {
                Ok(server) => return Ok(server),
                Err(Attempt::PortTaken(detail)) => last_race = detail,
                Err(Attempt::Failed(error)) => return Err(error),
            }
        }
        Err(KvError::RedisServerStart(format!(
            "another process took the chosen port {PORT_ATTEMPTS} times in a row; last: {last_race}"
        )))
    }

    /// One attempt: spawn on `port` and wait until the server answers.
    fn spawn(exe: &Path, dir: &Path, port: u16, append_only: bool) -> Result<Self, Attempt> {
        let log = dir.join(LOG_FILE);
        let log_file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .map_err(|e| Attempt::Failed(KvError::io("open log file", &log, e)))?;
        let log_start = log_file.metadata().map(|m| m.len()).unwrap_or(0);
        let stderr = log_file
            .try_clone()
            .map_err(|e| Attempt::Failed(KvError::io("open log file", &log, e)))?;
        let mut command = Command::new(exe);
        command
            .arg("--bind")
            .arg("127.0.0.1")
            .arg("--port")
            .arg(port.to_string())
            .arg("--daemonize")
            .arg("no")
            .arg("--dir")
            .arg(dir)
            .arg("--save")
            .arg("");
        let socket = socket_path(port);
        if let Some(socket) = &socket {
            remove_stale_sockets(socket.parent().unwrap_or(Path::new("/tmp")));
            command
                .arg("--unixsocket")
                .arg(socket)
                .args(["--unixsocketperm", "700"]);
        }
        if append_only {
            command.args(["--appendonly", "yes", "--appendfsync", "always"]);
        } else {
            command.args(["--appendonly", "no"]);
        }
        die_with_parent(&mut command);
        crate::child::no_inherited_files(&mut command);
        let child = command
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(stderr)
            .spawn()
            .map_err(|e| {
                Attempt::Failed(KvError::RedisServerStart(format!(
                    "cannot run {}: {e}",
                    exe.display()
                )))
            })?;
        let server = RedisServer {
            pid: child.id(),
            child: Mutex::new(child),
            port,
            url: match &socket {
                Some(socket) => format!("redis+unix://{}", socket.display()),
                None => format!("redis://127.0.0.1:{port}/"),
            },
            socket,
            dir: dir.to_path_buf(),
            log,
            append_only,
        };
        // On any failure below, dropping `server` kills and reaps the child.
        server.wait_ready(log_start)?;
        Ok(server)
    }

    /// Polls until the server answers `PING` and proves (by its process id) to be our child.
    fn wait_ready(&self, log_start: u64) -> Result<(), Attempt> {
        let started = Instant::now();
        let mut deadline = started + START_TIMEOUT;
        let client = redis::Client::open(self.url.as_str()).map_err(|e| {
            Attempt::Failed(KvError::RedisServerStart(format!(
                "bad address {}: {e}",
                self.url
            )))
        })?;
        loop {
            if let Some(status) = self.exit_status() {
                let tail = log_tail(&self.log, log_start);
                if tail.contains("Address already in use") {
                    return Err(Attempt::PortTaken(tail));
                }
                let what = format!(
                    "{} exited ({status}) before answering on port {}",
                    EXECUTABLE, self.port
                );
                // On a full disk it exits having written nothing, not even its log.
                let dir = self.log.parent().unwrap_or(&self.log);
                if let Some(full) = KvError::disk_full_if_low(dir, &what) {
                    return Err(Attempt::Failed(full));
                }
                return Err(Attempt::Failed(KvError::RedisServerStart(format!(
                    "{what}; log {}:\n{tail}",
                    self.log.display()
                ))));
            }
            match probe(&client) {
                Probe::Ready(pid) if pid == self.pid => return Ok(()),
                Probe::Ready(other) => {
                    return Err(Attempt::PortTaken(format!(
                        "port {} answered for process {other}, not for our server {}",
                        self.port, self.pid
                    )))
                }
                Probe::Loading => deadline = started + LOAD_TIMEOUT,
                Probe::NotYet => {}
            }
            if Instant::now() >= deadline {
                let waited = deadline.duration_since(started).as_secs();
                return Err(Attempt::Failed(KvError::RedisServerStart(format!(
                    "{} (pid {}) did not answer PING on port {} within {waited} s; log {}:\n{}",
                    EXECUTABLE,
                    self.pid,
                    self.port,
                    self.log.display(),
                    log_tail(&self.log, log_start)
                ))));
            }
            std::thread::sleep(PROBE_INTERVAL);
        }
    }

    /// The URL clients connect to: `redis+unix:///tmp/triebench-redis-<port>.sock`, or
    /// `redis://127.0.0.1:<port>/` where `/tmp` cannot hold the socket.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The server's data directory (canonical path): `--dir`, where the AOF lives.
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
                    "the managed {EXECUTABLE} (pid {}, port {}) has exited ({status}); \
                     see its log {}",
                    self.pid,
                    self.port,
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
        // A killed server leaves its socket file behind.
        if let Some(socket) = &self.socket {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// Where the server on `port` listens for local clients: `/tmp/triebench-redis-<port>.sock`, a
/// path short enough for any socket address (a directory under test may not be). The port is
/// this server's alone while it runs, so a file already there is a killed server's leftover,
/// which redis-server replaces. `None` when `/tmp` is not a writable directory.
fn socket_path(port: u16) -> Option<PathBuf> {
    if !cfg!(unix) {
        return None;
    }
    let dir = Path::new("/tmp");
    let writable = dir
        .metadata()
        .is_ok_and(|m| m.is_dir() && !m.permissions().readonly());
    writable.then(|| dir.join(format!("triebench-redis-{port}.sock")))
}

/// How old a socket file nobody answers on must be before it is taken for a killed server's:
/// a server that is starting has bound its socket moments ago.
const STALE_SOCKET_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the socket files in `dir` left by managed servers that were killed with their owner
/// (a crash test's child, whose `Drop` never ran): a `triebench-redis-*.sock` older than
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

/// Makes the spawned server receive SIGKILL when the spawning thread (its parent, to the kernel)
/// exits, so a SIGKILLed owner leaves no server behind (Linux; a no-op elsewhere).
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid is async-signal-safe and is read before the fork.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe functions
    // (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before prctl took effect: then nobody would kill us.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

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

/// A loopback port that was free a moment ago (the OS picks it; we release it for the server).
fn free_port() -> KvResult<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| KvError::RedisServerStart(format!("cannot find a free port: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| KvError::RedisServerStart(format!("cannot find a free port: {e}")))?
        .port();
    Ok(port)
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
