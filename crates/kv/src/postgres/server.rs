//! A managed private PostgreSQL server: `initdb` into the directory under test (so the data and
//! WAL live on the filesystem being measured) and `postgres` listening only on a unix socket
//! (`listen_addresses=''`), stopped by PID when the guard drops.
//!
//! - Binaries: looked up in `TRIEBENCH_PG_BIN` (a directory; a seam for tests and unusual
//!   installs), then on `PATH`, then in Debian's `/usr/lib/postgresql/<version>/bin` (newest).
//! - Root: PostgreSQL refuses to run as root, so when the effective uid is 0 `initdb` and
//!   `postgres` run as `nobody`, which is made owner of the cluster directory
//!   (`<dir>/pgdata`); the directory under test and its ancestors get search permission for
//!   others (`o+x`, never read).
//! - The socket lives in `<dir>/pgdata` unless that path is too long for a unix socket address
//!   (~107 bytes); then in a fresh short directory under `/tmp`.
//! - Death of the owner: on Linux the server gets `PR_SET_PDEATHSIG(SIGINT)` (set after the
//!   uid change, which would clear it), so it does not outlive a SIGKILLed owner: a fast
//!   shutdown, which flushes the WAL first, as a database server outliving a crashed client
//!   would keep what it acknowledged (what `postgres-async` promises). A crash of the server
//!   itself is [`PgServer::kill`].
//! - `initdb` syncs the new cluster to disk before the server starts (a cluster created with
//!   `--no-sync` did not survive a power cut right after: its `PG_VERSION` came back empty),
//!   and the server runs with `fsync=on`, so commits are flushed as the profile says.
//! - Drop: SIGINT (fast shutdown: a checkpoint, then exit), SIGKILL after 10 s.

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{KvError, KvResult};

/// Sub-directory of the directory under test holding the cluster.
pub(crate) const DATA_DIR: &str = "pgdata";
/// Log of initdb and the server, in the directory under test.
pub(crate) const LOG_FILE: &str = "postgres.log";
/// Role the managed cluster is created with.
pub(crate) const USER: &str = "triebench";
/// Environment variable naming a directory that holds `initdb` and `postgres`.
pub const BIN_ENV: &str = "TRIEBENCH_PG_BIN";
const START_TIMEOUT: Duration = Duration::from_secs(60);
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest socket directory: `sun_path` is 108 bytes including `/.s.PGSQL.5432` and a NUL.
const MAX_SOCKET_DIR: usize = 90;

/// A running private `postgres` owned by this process.
#[derive(Debug)]
pub struct PgServer {
    child: Mutex<Child>,
    pid: u32,
    socket_dir: PathBuf,
    data_dir: PathBuf,
    log: PathBuf,
    /// A short socket directory made for this server (removed on drop).
    _short_socket: Option<tempfile::TempDir>,
}

/// The uid/gid the server runs as when we are root.
#[derive(Debug, Clone, Copy)]
struct RunAs {
    uid: libc::uid_t,
    gid: libc::gid_t,
}

impl PgServer {
    /// Starts a server on the cluster in `<dir>/pgdata`, running `initdb` first if there is none.
    pub fn start(dir: &Path) -> KvResult<PgServer> {
        let bin = std::env::var_os(BIN_ENV).map(PathBuf::from);
        Self::start_with_bin(dir, bin.as_deref())
    }

    /// [`PgServer::start`] with the binaries looked up in `bin` only (when given): a seam for
    /// tests, which must not change the environment of a process running other tests.
    #[doc(hidden)]
    pub fn start_with_bin(dir: &Path, bin: Option<&Path>) -> KvResult<PgServer> {
        let bin = find_bin_dir(bin).ok_or(KvError::PostgresMissing)?;
        std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
        let dir = dir
            .canonicalize()
            .map_err(|e| KvError::io("resolve directory", dir, e))?;
        let run_as = run_as()?;
        let data_dir = dir.join(DATA_DIR);
        let log = dir.join(LOG_FILE);
        let log_file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .map_err(|e| KvError::io("open log file", &log, e))?;
        let log_start = log_file.metadata().map(|m| m.len()).unwrap_or(0);
        if let Some(r) = run_as {
            allow_traverse(&dir)?;
            chown(&log, r)?;
        }
        if !data_dir.join("PG_VERSION").exists() {
            std::fs::create_dir_all(&data_dir)
                .map_err(|e| KvError::io("create directory", &data_dir, e))?;
            if let Some(r) = run_as {
                chown(&data_dir, r)?;
            }
            let mut initdb = Command::new(bin.join("initdb"));
            initdb.arg("-D").arg(&data_dir).args([
                "-A",
                "trust",
                "-U",
                USER,
                "-E",
                "UTF8",
                "--locale=C",
            ]);
            as_user(&mut initdb, run_as, false);
            crate::child::no_inherited_files(&mut initdb);
            let status = initdb
                .stdin(Stdio::null())
                .stdout(clone(&log_file, &log)?)
                .stderr(clone(&log_file, &log)?)
                .status()
                .map_err(|e| KvError::PostgresStart(format!("cannot run initdb: {e}")))?;
            if !status.success() {
                return Err(start_failure(
                    format!("initdb failed ({status})"),
                    &log,
                    log_start,
                ));
            }
        }
        let (socket_dir, short) = if data_dir.as_os_str().len() <= MAX_SOCKET_DIR {
            (data_dir.clone(), None)
        } else {
            let t = tempfile::Builder::new()
                .prefix("tbpg")
                .tempdir_in("/tmp")
                .map_err(|e| KvError::io("create socket directory", "/tmp", e))?;
            if let Some(r) = run_as {
                chown(t.path(), r)?;
            }
            (t.path().to_path_buf(), Some(t))
        };
        let mut command = Command::new(bin.join("postgres"));
        command
            .arg("-D")
            .arg(&data_dir)
            .arg("-k")
            .arg(&socket_dir)
            .args(["-c", "listen_addresses=", "-c", "fsync=on"])
            // Dynamic shared memory as files in the cluster, not /dev/shm segments that a
            // killed server would leave behind.
            .args(["-c", "dynamic_shared_memory_type=mmap"]);
        as_user(&mut command, run_as, true);
        crate::child::no_inherited_files(&mut command);
        let child = command
            .stdin(Stdio::null())
            .stdout(clone(&log_file, &log)?)
            .stderr(clone(&log_file, &log)?)
            .spawn()
            .map_err(|e| KvError::PostgresStart(format!("cannot run postgres: {e}")))?;
        let server = PgServer {
            pid: child.id(),
            child: Mutex::new(child),
            socket_dir,
            data_dir,
            log,
            _short_socket: short,
        };
        server.wait_ready(log_start)?;
        Ok(server)
    }

    fn wait_ready(&self, log_start: u64) -> KvResult<()> {
        let started = Instant::now();
        loop {
            if !self.is_running() {
                return Err(start_failure(
                    "postgres exited before accepting connections".to_string(),
                    &self.log,
                    log_start,
                ));
            }
            if postgres::Config::new()
                .host_path(&self.socket_dir)
                .user(USER)
                .dbname("postgres")
                .connect_timeout(Duration::from_secs(2))
                .connect(postgres::NoTls)
                .is_ok()
            {
                return Ok(());
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(start_failure(
                    format!(
                        "postgres (pid {}) did not accept connections within {} s",
                        self.pid,
                        START_TIMEOUT.as_secs()
                    ),
                    &self.log,
                    log_start,
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Client configuration for this server (unix socket, role `triebench`, database `postgres`).
    pub fn config(&self) -> postgres::Config {
        let mut config = postgres::Config::new();
        config
            .host_path(&self.socket_dir)
            .user(USER)
            .dbname("postgres");
        config
    }

    /// A connection string for this server (`host=<socket dir> user=triebench dbname=postgres`,
    /// libpq's keyword form, which `POSTGRES_URL` and [`postgres::Config`] accept): how stores
    /// and other clients share one managed server as they would an existing one.
    pub fn url(&self) -> String {
        let quoted = |v: &str| format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"));
        format!(
            "host={} user={} dbname=postgres",
            quoted(&self.socket_dir.to_string_lossy()),
            quoted(USER)
        )
    }

    /// The postmaster's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The cluster directory (`<dir>/pgdata`).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The server's log file.
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// The directory holding the server's unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// Whether the postmaster still runs.
    pub fn is_running(&self) -> bool {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        matches!(child.try_wait(), Ok(None))
    }

    /// Kills the whole server outright (SIGKILL), as a crash would; used by fault tests.
    ///
    /// Killing the postmaster alone is not a crash: each connection's backend process lives on
    /// until it next polls for its parent, and may still commit a transaction sent meanwhile.
    /// So the postmaster is stopped first (it can fork no more), then its children are
    /// killed, then the postmaster.
    pub fn kill(&self) {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        if let Ok(None) = child.try_wait() {
            let pid = self.pid as libc::pid_t;
            // SAFETY: signals to our own unreaped child and to processes it forked.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
            for backend in children_of(self.pid) {
                // SAFETY: as above. A child that exits meanwhile stays a zombie (its stopped
                // parent cannot reap it), so its pid is not reused.
                unsafe { libc::kill(backend as libc::pid_t, libc::SIGKILL) };
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Ok(None) = child.try_wait() {
            // SAFETY: kill(2) on our own child's pid, which is not yet reaped.
            unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGINT) };
            let deadline = Instant::now() + STOP_TIMEOUT;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}

/// Processes whose parent is `parent`, read from `/proc/<pid>/stat` (empty where there is no
/// `/proc`).
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parent = parent.to_string();
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
            let after_comm = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            after_comm.split_whitespace().nth(1) == Some(parent.as_str())
        })
        .collect()
}

/// The directory with `initdb` and `postgres`: `explicit` only when given; else `PATH`, then
/// `/usr/lib/postgresql/<newest>/bin`.
fn find_bin_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("postgres").is_file();
    if let Some(dir) = explicit {
        return has(dir).then(|| dir.to_path_buf());
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            if has(&d) {
                // Resolve symlinks (Debian links /usr/local/bin or /usr/bin into its own tree).
                let real = d.join("postgres").canonicalize().ok();
                return Some(
                    real.and_then(|p| p.parent().map(Path::to_path_buf))
                        .unwrap_or(d),
                );
            }
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    versions.sort();
    versions.pop().map(|(_, d)| d)
}

/// `Some(nobody)` when running as root, `None` otherwise.
fn run_as() -> KvResult<Option<RunAs>> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    let name = c"nobody";
    // SAFETY: getpwnam with a valid C string; the result is read at once, before any other call.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return Err(KvError::PostgresStart(
            "running as root, and there is no user `nobody` to run postgres as".into(),
        ));
    }
    // SAFETY: pw is non-null and points to libc's static passwd record.
    let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
    Ok(Some(RunAs { uid, gid }))
}

fn chown(path: &Path, r: RunAs) -> KvResult<()> {
    std::os::unix::fs::chown(path, Some(r.uid), Some(r.gid))
        .map_err(|e| KvError::io("hand over to user nobody", path, e))
}

/// Gives others search permission (`o+x`, not read) on `dir` and its ancestors, so the
/// unprivileged server can reach its cluster (a `mktemp -d` parent is 0700).
fn allow_traverse(dir: &Path) -> KvResult<()> {
    use std::os::unix::fs::PermissionsExt;
    for d in dir.ancestors() {
        let meta = std::fs::metadata(d).map_err(|e| KvError::io("stat directory", d, e))?;
        let mode = meta.permissions().mode();
        if mode & 0o001 == 0 {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(mode | 0o001))
                .map_err(|e| KvError::io("allow search by the server's user", d, e))?;
        }
    }
    Ok(())
}

/// Runs `command` as `run_as` (when root) and, for the server, dies with the spawning thread.
fn as_user(command: &mut Command, run_as: Option<RunAs>, die_with_parent: bool) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid is async-signal-safe and read before the fork.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
    // functions (setgroups, setgid, setuid, prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            if let Some(r) = run_as {
                if libc::setgroups(0, std::ptr::null()) == -1
                    || libc::setgid(r.gid) == -1
                    || libc::setuid(r.uid) == -1
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            #[cfg(target_os = "linux")]
            if die_with_parent {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT, 0, 0, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
            let _ = (parent, die_with_parent);
            Ok(())
        });
    }
    if run_as.is_some() {
        command.env("HOME", "/tmp");
    }
}

fn clone(file: &std::fs::File, path: &Path) -> KvResult<std::fs::File> {
    file.try_clone()
        .map_err(|e| KvError::io("open log file", path, e))
}

/// Lines of the log shown in a start error: its last few, where initdb and postgres say why.
const LOG_TAIL_LINES: usize = 4;

/// Why `initdb` or the server failed to start: [`KvError::DiskFull`] when the log says the disk
/// is full (initdb's bootstrap fails with ENOSPC) or the disk is nearly full (a full one leaves
/// the log empty), else the log's last lines since `from`. The log lives in the store's
/// directory, which a full-disk error names.
fn start_failure(what: String, log: &Path, from: u64) -> KvError {
    let dir = log.parent().unwrap_or(log);
    let tail = log_tail(log, from);
    if let Some(full) = tail.lines().find(|l| l.contains("No space left on device")) {
        return KvError::disk_full(dir, format!("{what}: {}", full.trim()));
    }
    KvError::disk_full_if_low(dir, &what).unwrap_or_else(|| {
        KvError::PostgresStart(format!(
            "{what}; log {}, last lines:\n{tail}",
            log.display()
        ))
    })
}

/// The last [`LOG_TAIL_LINES`] non-empty lines written to the log since `from` (best effort).
fn log_tail(path: &Path, from: u64) -> String {
    let Ok(mut f) = std::fs::File::open(path) else {
        return "(cannot open the log)".to_string();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = from.max(len.saturating_sub(4096));
    let _ = f.seek(SeekFrom::Start(start));
    let mut bytes = Vec::new();
    let _ = f.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return "(the log is empty)".to_string();
    }
    lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
}
