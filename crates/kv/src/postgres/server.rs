//! A managed private PostgreSQL server: `initdb` into the directory under test (so the data and
//! WAL live on the filesystem being measured) and `postgres` listening only on a unix socket
//! (`listen_addresses=''`), stopped by PID when the guard drops. Only its owner can reach it.
//!
//! - Binaries: looked up in `TRIEBENCH_PG_BIN` (a directory; a seam for tests and unusual
//!   installs), then on `PATH`, then in Debian's `/usr/lib/postgresql/<version>/bin` (newest).
//! - Root: PostgreSQL refuses to run as root, so when the effective uid is 0 `initdb` and
//!   `postgres` run as `triebench-srv` (`server_user`), which is made owner of the cluster directory
//!   `<dir>/pgdata` (created 0700 and handed over through a handle, never by following a
//!   link: `dir_handle`). The server reaches the cluster through that open handle
//!   (`-D /proc/self/fd/<n>`), so no parent of the directory under test is opened up for it:
//!   their permissions are never changed.
//! - The socket lives in a fresh private directory under `/tmp` (`private_dir`: 0700, owned by
//!   the server's user, removed when the server goes, or by the next server when its owner was
//!   SIGKILLed), whatever the length of the data directory's path, and is itself 0700.
//! - Authentication: `peer` only (`pg_hba.conf` is rewritten at every start), through a user map
//!   that lets only this process's OS user in: no password exists to leak, and no other local
//!   user can log in even if they reached the socket. The cluster's bootstrap superuser
//!   `triebench` only sets up the store's role; stores (and [`PgServer::url`]) use
//!   `triebench_store`, an ordinary role (not a superuser, so not a member of
//!   `pg_execute_server_program`: `COPY ... TO PROGRAM` is refused) that may create schemas.
//! - Death of the owner: on Linux the server gets `PR_SET_PDEATHSIG(SIGINT)` (set after the
//!   uid change, which would clear it), so it does not outlive a SIGKILLed owner: a fast
//!   shutdown, which flushes the WAL first, as a database server outliving a crashed client
//!   would keep what it acknowledged (what `postgres-async` promises). A crash of the server
//!   itself is [`PgServer::kill`].
//! - `initdb` syncs the new cluster to disk before the server starts (a cluster created with
//!   `--no-sync` did not survive a power cut right after: its `PG_VERSION` came back empty),
//!   and the server runs with `fsync=on`, so commits are flushed as the profile says.
//! - The log, `<dir>/postgres.log`, is opened for append without following a link (0600).
//! - Drop: SIGINT (fast shutdown: a checkpoint, then exit), SIGKILL after 10 s.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::dir_handle::DirHandle;
use crate::error::{KvError, KvResult};
use crate::private_dir::PrivateDir;
use crate::server_user::{Launch, ServerUser};

/// Sub-directory of the directory under test holding the cluster.
pub(crate) const DATA_DIR: &str = "pgdata";
/// Log of initdb and the server, in the directory under test.
pub(crate) const LOG_FILE: &str = "postgres.log";
/// The cluster's bootstrap superuser: sets up [`STORE_ROLE`], nothing else.
pub(crate) const USER: &str = "triebench";
/// The ordinary role stores use.
pub const STORE_ROLE: &str = "triebench_store";
/// Environment variable naming a directory that holds `initdb` and `postgres`.
pub const BIN_ENV: &str = "TRIEBENCH_PG_BIN";
/// The user map in `pg_ident.conf` that peer authentication goes through.
const IDENT_MAP: &str = "triebench";
/// The role a standby replicates as (`REPLICATION`, no superuser), with a password drawn at
/// every start of the pair.
pub(crate) const REPLICATION_ROLE: &str = "triebench_repl";

/// Builds the command that creates a cluster in place of `initdb` (a base backup), given the
/// binaries' directory and the cluster's path as the child reaches it.
pub(crate) type CreateCluster = Box<dyn Fn(&Path, &str) -> Command>;

/// What a server of a replicated pair needs beyond a plain one.
#[derive(Default)]
pub(crate) struct Extra {
    /// `-c name=value` settings on the command line (nothing secret: `ps` shows them).
    pub(crate) settings: Vec<(String, String)>,
    /// Lets [`REPLICATION_ROLE`] in for replication, with its password.
    pub(crate) replication: bool,
    /// A hot standby: read-only, so the store's role is not set up (the primary's is copied).
    pub(crate) standby: bool,
    /// Creates the cluster when there is none, instead of `initdb`.
    pub(crate) create: Option<CreateCluster>,
    /// Files written in the cluster directory (0600, the server's) before every start.
    pub(crate) files: Vec<(&'static str, Vec<u8>)>,
}
const START_TIMEOUT: Duration = Duration::from_secs(60);
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// A running private `postgres` owned by this process.
#[derive(Debug)]
pub struct PgServer {
    child: Mutex<Child>,
    pid: u32,
    socket_dir: PathBuf,
    data_dir: PathBuf,
    log: PathBuf,
    user: Option<ServerUser>,
    /// The socket's directory, removed after the server stops (fields drop after `drop`).
    _private: PrivateDir,
}

impl PgServer {
    /// Starts a server on the cluster in `<dir>/pgdata`, running `initdb` first if there is none.
    ///
    /// Fails with [`KvError::PostgresMissing`] without the binaries, [`KvError::Planted`] when
    /// `<dir>/postgres.log` or `<dir>/pgdata` is a link or not ours, and
    /// [`KvError::PostgresStart`] (quoting the log) when `initdb` or the server fails.
    pub fn start(dir: &Path) -> KvResult<PgServer> {
        let bin = std::env::var_os(BIN_ENV).map(PathBuf::from);
        Self::start_with_bin(dir, bin.as_deref())
    }

    /// [`PgServer::start`] with the binaries looked up in `bin` only (when given): a seam for
    /// tests, which must not change the environment of a process running other tests.
    #[doc(hidden)]
    pub fn start_with_bin(dir: &Path, bin: Option<&Path>) -> KvResult<PgServer> {
        let bin = find_bin_dir(bin).ok_or(KvError::PostgresMissing)?;
        Self::start_in(DirHandle::open_top(dir)?, &bin, &Extra::default())
    }

    /// The binaries' directory found from `bin` (or the usual places without it), or
    /// [`KvError::PostgresMissing`].
    pub(crate) fn bin_dir(bin: Option<&Path>) -> KvResult<PathBuf> {
        find_bin_dir(bin).ok_or(KvError::PostgresMissing)
    }

    /// [`PgServer::start_with_bin`] on the directory `top`, already opened through a handle
    /// (a standby's `<dir>/standby` is made below the store's directory without following a
    /// link), with the binaries in `bin` and what a server of a replicated pair needs beyond
    /// a plain one ([`Extra`], used by `standby`).
    pub(crate) fn start_in(top: DirHandle, bin: &Path, extra: &Extra) -> KvResult<PgServer> {
        let bin = bin.to_path_buf();
        let dir = top.path().to_path_buf();
        let user = ServerUser::for_server("postgres")?;
        let client_user = os_user_name()?;
        let log = dir.join(LOG_FILE);
        let log_file = top.open_append(LOG_FILE, user)?;
        let log_start = log_file.metadata().map(|m| m.len()).unwrap_or(0);
        let data = top.create_dir(DATA_DIR, user)?;
        let data_dir = data.path().to_path_buf();
        // The cluster as the child reaches it: through the handle it inherits.
        let data_arg = format!("/proc/self/fd/{}", data.raw());
        let launch = Launch {
            user,
            death_signal: None,
            cwd: Some(data.raw()),
            keep: Some(data.raw()),
        };
        if !data.has_file("PG_VERSION") {
            let mut initdb = match &extra.create {
                Some(create) => create(&bin, &data_arg),
                None => {
                    let mut initdb = Command::new(bin.join("initdb"));
                    initdb.arg("-D").arg(&data_arg).args([
                        "-A",
                        "peer",
                        "-U",
                        USER,
                        "-E",
                        "UTF8",
                        "--locale=C",
                    ]);
                    initdb
                }
            };
            crate::child::no_inherited_files(&mut initdb);
            launch.apply(&mut initdb);
            let status = initdb
                .stdin(Stdio::null())
                .stdout(clone(&log_file, &log)?)
                .stderr(clone(&log_file, &log)?)
                .status()
                .map_err(|e| KvError::PostgresStart(format!("cannot create the cluster: {e}")))?;
            if !status.success() {
                let what = if extra.create.is_some() {
                    "pg_basebackup"
                } else {
                    "initdb"
                };
                return Err(start_failure(
                    format!("{what} failed ({status})"),
                    &log,
                    log_start,
                ));
            }
        }
        write_auth(&data, user, &client_user, extra.replication)?;
        for (name, contents) in &extra.files {
            data.write_file(name, contents, user)?;
        }
        let private = PrivateDir::create("pg", user)?;
        let socket_dir = private.path().to_path_buf();
        let mut command = Command::new(bin.join("postgres"));
        command
            .arg("-D")
            .arg(&data_arg)
            .arg("-k")
            .arg(&socket_dir)
            .args(["-c", "listen_addresses=", "-c", "fsync=on"])
            .args(["-c", "unix_socket_permissions=0700"])
            // Dynamic shared memory as files in the cluster, not /dev/shm segments that a
            // killed server would leave behind.
            .args(["-c", "dynamic_shared_memory_type=mmap"]);
        for (name, value) in &extra.settings {
            command.arg("-c").arg(format!("{name}={value}"));
        }
        crate::child::no_inherited_files(&mut command);
        Launch {
            death_signal: Some(libc::SIGINT),
            ..launch
        }
        .apply(&mut command);
        command
            .stdin(Stdio::null())
            .stdout(clone(&log_file, &log)?)
            .stderr(clone(&log_file, &log)?);
        let child = crate::child::spawn_lasting(command)
            .map_err(|e| KvError::PostgresStart(format!("cannot run postgres: {e}")))?;
        drop(data);
        let server = PgServer {
            pid: child.id(),
            child: Mutex::new(child),
            socket_dir,
            data_dir,
            log,
            user,
            _private: private,
        };
        let mut admin = server.wait_ready(log_start)?;
        if !extra.standby {
            // A hot standby is read-only; its roles are the primary's, copied by the backup.
            setup_store_role(&mut admin)?;
        }
        Ok(server)
    }

    /// Waits until the server accepts the bootstrap superuser; returns that connection.
    fn wait_ready(&self, log_start: u64) -> KvResult<postgres::Client> {
        let started = Instant::now();
        loop {
            if !self.is_running() {
                return Err(start_failure(
                    "postgres exited before accepting connections".to_string(),
                    &self.log,
                    log_start,
                ));
            }
            if let Ok(client) = postgres::Config::new()
                .host_path(&self.socket_dir)
                .user(USER)
                .dbname("postgres")
                .connect_timeout(Duration::from_secs(2))
                .connect(postgres::NoTls)
            {
                return Ok(client);
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

    /// Client configuration for this server (unix socket, the ordinary role `triebench_store`,
    /// database `postgres`); peer authentication, so no password.
    pub fn config(&self) -> postgres::Config {
        let mut config = postgres::Config::new();
        config
            .host_path(&self.socket_dir)
            .user(STORE_ROLE)
            .dbname("postgres");
        config
    }

    /// A connection string for this server (`host=<socket dir> user=triebench_store
    /// dbname=postgres`,
    /// libpq's keyword form, which `POSTGRES_URL` and [`postgres::Config`] accept): how stores
    /// and other clients share one managed server as they would an existing one.
    pub fn url(&self) -> String {
        url_for_socket_dir(&self.socket_dir)
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

    /// The directory holding the server's unix socket: private (0700, the server's user's),
    /// removed when the server goes.
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// The user id the server runs as: `triebench-srv`'s when this process is root, else ours.
    pub fn uid(&self) -> u32 {
        // SAFETY: geteuid has no preconditions.
        self.user
            .map_or_else(|| unsafe { libc::geteuid() }, |u| u.uid)
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
pub(crate) fn find_bin_dir(explicit: Option<&Path>) -> Option<PathBuf> {
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

/// The name of this process's OS user, which the peer map lets in.
fn os_user_name() -> KvResult<String> {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    // SAFETY: getpwuid returns libc's static record or null; it is read at once.
    let pw = unsafe { libc::getpwuid(uid) };
    if pw.is_null() {
        return Err(KvError::PostgresStart(format!(
            "this process's uid {uid} has no user name (no passwd entry), which PostgreSQL's \
             peer authentication needs: add one, or set POSTGRES_URL to an existing server"
        )));
    }
    // SAFETY: pw is non-null; pw_name is a NUL-terminated string in the same record.
    let name = unsafe { std::ffi::CStr::from_ptr((*pw).pw_name) };
    Ok(name.to_string_lossy().into_owned())
}

/// Writes `pg_hba.conf` (peer authentication over the unix socket only, through the user map)
/// and `pg_ident.conf` (this process's OS user may log in as the superuser and the store's
/// role; nobody else may), at every start, so a cluster made by an older version with `trust`
/// is locked too.
fn write_auth(
    data: &DirHandle,
    user: Option<ServerUser>,
    client: &str,
    replication: bool,
) -> KvResult<()> {
    if client.is_empty() || client.chars().any(|c| c.is_whitespace() || c == '#') {
        return Err(KvError::PostgresStart(format!(
            "the OS user name {client:?} cannot be written in pg_ident.conf; run as another \
             user or set POSTGRES_URL"
        )));
    }
    // A standby logs in as the replication role with its password (it comes through a delay
    // proxy, whose peer credentials are this process's, so peer authentication would say
    // nothing about it); the line comes first, so that role never gets in by peer.
    let replication_line = if replication {
        format!("local replication {REPLICATION_ROLE} scram-sha-256\n")
    } else {
        String::new()
    };
    let hba = format!(
        "# written by triebench at every start: only its owner's OS user, over the socket\n\
         {replication_line}local all all peer map={IDENT_MAP}\n"
    );
    let ident = format!(
        "# written by triebench at every start\n\
         {IDENT_MAP} {client} {USER}\n\
         {IDENT_MAP} {client} {STORE_ROLE}\n"
    );
    data.write_file("pg_hba.conf", hba.as_bytes(), user)?;
    data.write_file("pg_ident.conf", ident.as_bytes(), user)
}

/// Creates the stores' ordinary role if missing and lets it create schemas (and tables in
/// `public`, which Transact's SQL state uses); hands it what a superuser of an older version
/// created for stores.
fn setup_store_role(admin: &mut postgres::Client) -> KvResult<()> {
    let sql = format!(
        "DO $$ BEGIN \
           IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{STORE_ROLE}') THEN \
             CREATE ROLE {STORE_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE; \
           END IF; \
         END $$; \
         GRANT CREATE ON DATABASE postgres TO {STORE_ROLE}; \
         GRANT CREATE, USAGE ON SCHEMA public TO {STORE_ROLE}; \
         DO $$ DECLARE r record; BEGIN \
           FOR r IN SELECT nspname FROM pg_namespace \
               WHERE nspowner = (SELECT oid FROM pg_roles WHERE rolname = '{USER}') \
                 AND nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('information_schema', 'public') \
           LOOP EXECUTE format('ALTER SCHEMA %I OWNER TO {STORE_ROLE}', r.nspname); END LOOP; \
           FOR r IN SELECT schemaname, tablename FROM pg_tables WHERE tableowner = '{USER}' \
               AND schemaname NOT IN ('pg_catalog', 'information_schema') \
           LOOP EXECUTE format('ALTER TABLE %I.%I OWNER TO {STORE_ROLE}', r.schemaname, \
             r.tablename); END LOOP; \
         END $$;"
    );
    admin
        .batch_execute(&sql)
        .map_err(|e| KvError::PostgresStart(format!("cannot set up the store's role: {e}")))
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

/// The connection string of a managed server whose socket is in `dir` (its own directory, or
/// that of a delay proxy in front of it).
pub(crate) fn url_for_socket_dir(dir: &Path) -> String {
    let quoted = |v: &str| format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"));
    format!(
        "host={} user={} dbname=postgres",
        quoted(&dir.to_string_lossy()),
        quoted(STORE_ROLE)
    )
}
