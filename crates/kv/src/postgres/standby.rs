//! A replicated pair of managed servers: the primary in `<dir>/pgdata`, a hot standby made from
//! it by `pg_basebackup` in `<dir>/standby/pgdata`, fed by PostgreSQL's own streaming
//! replication; the profiles `postgres-sync-standby`, `postgres-remote-apply` and
//! `postgres-async-standby`. [`PgStore::kill_primary`] loses the primary's host (its link cut,
//! its processes SIGKILLed) and [`PgStore::fail_over`] promotes the standby.
//!
//! - **The link**: the standby's walreceiver connects to the primary through a delay proxy
//!   ([`NetHop`]) when the run asks for one (`--net-rtt`), so the same delay applies to the
//!   store ↔ primary and primary ↔ standby links (each its own proxy), unless
//!   `TRIEBENCH_STANDBY_RTT` gives the replication link its own (a far standby); without
//!   either it connects straight to the primary's socket. The proxy listens in a private 0700 directory owned by
//!   the server's user (the standby runs as that user), on a unix socket: no TCP.
//! - **Authentication**: the standby logs in as the role `triebench_repl` (`REPLICATION`, not a
//!   superuser) with a password drawn at every start of the pair (`secret`), checked by
//!   `scram-sha-256` (`pg_hba.conf`'s first line); only the SCRAM verifier, computed here,
//!   reaches the primary. The password is in the standby's `postgresql.auto.conf` (0600, the
//!   server's user's, in its 0700 cluster) and in `pg_basebackup`'s environment, never on a
//!   command line or printed.
//! - **Synchronous**: the primary starts asynchronous (so that setting up roles cannot wait for
//!   a standby not yet there), then, once the standby streams, `synchronous_standby_names` names
//!   it (`ALTER SYSTEM`, reloaded) and the pair opens only when the standby is `sync`.
//!   `postgresql.auto.conf` is rewritten at every start, so a restarted primary starts
//!   asynchronous again. The store's session sets `synchronous_commit` to `on` (a commit waits
//!   for the standby's flush) or `remote_apply` (and for its replay).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::content_cache::{ContentCache, DEFAULT_BUDGET};
use crate::dir_handle::DirHandle;
use crate::error::{KvError, KvResult};
use crate::net_hop::NetHop;
use crate::server_user::ServerUser;
use crate::store::validate_tables;

use super::server::{Extra, PgServer, BIN_ENV, REPLICATION_ROLE, USER};
use super::{pg_err, schema, PgOptions, PgStore, PG_SOCKET, STORE_ROLE};

/// The standby's name on the primary (`application_name`, `synchronous_standby_names`).
pub const STANDBY_NAME: &str = "triebench_standby";
/// Sub-directory of the store's directory holding the standby (its `pgdata` and log).
pub const STANDBY_DIR: &str = "standby";
/// How long the standby may take to stream (and become synchronous).
const STREAM_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a promotion may take (replaying what the standby had received included).
const PROMOTE_TIMEOUT: Duration = Duration::from_secs(60);
/// How often a promotion in progress is looked at.
const PROMOTE_POLL: Duration = Duration::from_millis(20);

/// How the standby takes part in a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandbyMode {
    /// `synchronous_commit=on` with the standby named synchronous: a commit returns once the
    /// standby has flushed its WAL.
    Sync,
    /// `synchronous_commit=remote_apply`: once the standby has also replayed it (readable there).
    RemoteApply,
    /// An asynchronous standby: a commit waits for the primary's own flush only.
    Async,
}

impl StandbyMode {
    /// Whether the primary waits for the standby.
    pub fn is_synchronous(self) -> bool {
        !matches!(self, StandbyMode::Async)
    }

    /// The session's `synchronous_commit` for this mode: `remote_apply`, else `on` (which
    /// waits for the standby's flush when the primary names it synchronous, for its own else).
    pub fn synchronous_commit(self) -> &'static str {
        match self {
            StandbyMode::RemoteApply => "remote_apply",
            StandbyMode::Sync | StandbyMode::Async => "on",
        }
    }
}

/// The standby of a pair and its link to the primary; dropped after the primary (which ships
/// what it has before it stops), the link first.
#[derive(Debug)]
pub(crate) struct Standby {
    /// The replication link's proxy; taken (cut) when the primary is killed.
    hop: Mutex<Option<NetHop>>,
    server: PgServer,
    mode: StandbyMode,
}

impl Standby {
    /// The standby's server.
    pub(super) fn server(&self) -> &PgServer {
        &self.server
    }
}

impl PgStore {
    /// Opens (creating if needed) a store with `tables` on a replicated pair of managed servers
    /// in `dir` (see the module's notes): the primary in `<dir>/pgdata`, the standby in
    /// `<dir>/standby`. `options.net` delays the store's link to the primary, `link` the
    /// standby's replication link (`None`: straight to the primary's socket).
    /// `options.asynchronous` is ignored (the mode says how commits wait); `options.url` is
    /// refused: the pair is this process's own.
    pub fn open_replicated(
        dir: &Path,
        tables: &[&str],
        options: PgOptions,
        mode: StandbyMode,
        link: Option<triebench_netdelay::DelaySpec>,
    ) -> KvResult<PgStore> {
        let names = validate_tables(tables)?;
        if options.url.is_some() {
            return Err(KvError::backend(
                "postgres",
                "a standby profile starts its own pair of servers; it cannot use POSTGRES_URL",
            ));
        }
        let (primary, standby) = start_pair(dir, mode, link)?;
        let (config, hop) = client_config(&primary, options.net)?;
        let conn = schema::connect(config, "triebench", &names, mode.synchronous_commit())?;
        Ok(PgStore {
            conn: Mutex::new(conn),
            names,
            writer_lock: Mutex::new(()),
            schema: "triebench".to_string(),
            content: (!options.uncached).then(|| ContentCache::new(DEFAULT_BUDGET)),
            hop,
            trips: std::sync::atomic::AtomicU64::new(0),
            server: Some(primary),
            standby: Some(Box::new(standby)),
        })
    }

    /// The standby's server, `None` for a store without one.
    pub fn standby_server(&self) -> Option<&PgServer> {
        self.standby.as_ref().map(|s| &s.server)
    }

    /// How the standby takes part in commits, `None` without one.
    pub fn standby_mode(&self) -> Option<StandbyMode> {
        self.standby.as_ref().map(|s| s.mode)
    }

    /// Loses the primary's host: cuts the replication link (with `--net-rtt`, the WAL still
    /// held in the link's delay proxy, "on the wire", is dropped, as a link that goes down with
    /// its host drops it) and kills the primary outright (SIGKILL, every process of it). The
    /// store's connection fails from then on. Nothing without a managed server.
    pub fn kill_primary(&self) {
        if let Some(standby) = &self.standby {
            drop(standby.hop.lock().unwrap_or_else(|p| p.into_inner()).take());
        }
        if let Some(server) = &self.server {
            server.kill();
        }
    }

    /// Fails over: drops this store's connection and primary (stopped cleanly if it still
    /// runs; [`kill_primary`](Self::kill_primary) first for a crash), promotes the standby
    /// (`pg_promote`, then polled until it has left recovery) and returns a store on it, reached
    /// through a new delay proxy when this one had one. The returned store has no standby.
    pub fn fail_over(self) -> KvResult<PgStore> {
        let PgStore {
            conn,
            names,
            schema,
            content,
            hop,
            server,
            standby,
            ..
        } = self;
        let Some(standby) = standby else {
            return Err(KvError::backend(
                "postgres",
                "this store has no standby to fail over to",
            ));
        };
        let net = hop.as_ref().map(NetHop::spec);
        drop(conn);
        drop(hop);
        drop(server);
        let Standby { hop, server, .. } = *standby;
        drop(hop.into_inner());
        promote(&server)?;
        let (config, hop) = client_config(&server, net)?;
        let conn = schema::connect(config, &schema, &names, "on")?;
        Ok(PgStore {
            conn: Mutex::new(conn),
            names,
            writer_lock: Mutex::new(()),
            schema,
            content: content.map(|_| ContentCache::new(DEFAULT_BUDGET)),
            hop,
            trips: std::sync::atomic::AtomicU64::new(0),
            server: Some(server),
            standby: None,
        })
    }
}

/// Starts a replicated pair in `dir` (see the module's notes): the primary in `<dir>/pgdata`,
/// the standby in `<dir>/standby` streaming through `link`'s delay (`None`: straight), named
/// synchronous when `mode` waits for it; returns once the standby streams (and is `sync`).
pub(super) fn start_pair(
    dir: &Path,
    mode: StandbyMode,
    link: Option<triebench_netdelay::DelaySpec>,
) -> KvResult<(PgServer, Standby)> {
    let bin = PgServer::bin_dir(std::env::var_os(BIN_ENV).map(PathBuf::from).as_deref())?;
    // Every directory below `dir` is made and opened through a handle: a link planted as
    // `standby` (or `pgdata` in it) is refused, never followed or chowned.
    let top = DirHandle::open_top(dir)?;
    let standby_dir = top.create_dir(STANDBY_DIR, None)?;
    refuse_promoted(&standby_dir)?;
    let secret = crate::secret::random_secret()?;
    let primary = PgServer::start_in(
        top,
        &bin,
        &Extra {
            settings: vec![("wal_keep_size".into(), "512MB".into())],
            replication: true,
            files: vec![("postgresql.auto.conf", auto_conf(&[]))],
            ..Extra::default()
        },
    )?;
    let mut admin = admin(primary.socket_dir())?;
    set_replication_password(&mut admin, &secret)?;
    let user = ServerUser::for_server("postgres")?;
    let primary_socket = primary.socket_dir().join(PG_SOCKET);
    let repl_hop = match link {
        Some(spec) => Some(NetHop::start_for(&primary_socket, PG_SOCKET, spec, user)?),
        None => None,
    };
    let link_dir = repl_hop.as_ref().map_or_else(
        || primary.socket_dir().to_path_buf(),
        |h| h.dir().to_path_buf(),
    );
    let backup_from = primary.socket_dir().to_path_buf();
    let backup_secret = secret.clone();
    let conninfo = format!(
        "host={} user={REPLICATION_ROLE} password={secret} application_name={STANDBY_NAME}",
        link_dir.display()
    );
    let standby = PgServer::start_in(
        standby_dir,
        &bin,
        &Extra {
            // Replay waits for a conflicting query rather than cancel it: the only queries
            // on the standby are short (promotion, checks).
            settings: vec![
                ("hot_standby".into(), "on".into()),
                ("max_standby_streaming_delay".into(), "-1".into()),
            ],
            replication: true,
            standby: true,
            create: Some(Box::new(move |bin: &Path, data: &str| {
                let mut c = Command::new(bin.join("pg_basebackup"));
                c.arg("-D")
                    .arg(data)
                    .arg("-h")
                    .arg(&backup_from)
                    .args(["-U", REPLICATION_ROLE, "-X", "stream", "-c", "fast", "-w"])
                    .env("PGPASSWORD", &backup_secret);
                c
            })),
            files: vec![
                ("standby.signal", Vec::new()),
                (
                    "postgresql.auto.conf",
                    auto_conf(&[("primary_conninfo", conninfo.as_str())]),
                ),
            ],
        },
    )?;
    let standby = Standby {
        hop: Mutex::new(repl_hop),
        server: standby,
        mode,
    };
    wait_streaming(&mut admin, &standby, false)?;
    if mode.is_synchronous() {
        // Two statements: ALTER SYSTEM refuses to run in the implicit transaction of a batch.
        admin
            .batch_execute(&format!(
                "ALTER SYSTEM SET synchronous_standby_names = '{STANDBY_NAME}'"
            ))
            .and_then(|()| admin.batch_execute("SELECT pg_reload_conf()"))
            .map_err(|e| pg_err("cannot name the synchronous standby", e))?;
        wait_streaming(&mut admin, &standby, true)?;
    }
    drop(admin);
    Ok((primary, standby))
}

/// Promotes the standby `server` and waits until it has left recovery.
///
/// The promotion is asked for with `pg_promote(false)`, which returns once it has signalled
/// it, and the wait is a poll of `pg_is_in_recovery()` in short queries, each its own
/// transaction. It used to be `pg_promote(true, 60)`, waiting inside one query for up to 60 s:
/// a query on a hot standby holds a snapshot while it runs, and the primary's pruning records
/// that replay meets after it was taken conflict with it. With streamed WAL and
/// `max_standby_streaming_delay = -1` replay then waits for the query to end, while the query
/// waited for replay to end: no promotion until `pg_promote` gave up ("server did not promote
/// within 60 seconds" in the standby's log, no "received promote request"), whenever the
/// primary was lost while the standby's replay lagged behind what it had received (issue 46;
/// `tests/standby_promote.rs`). A short query delays replay by its own length at most.
///
/// Replay may still cancel one of these queries (`40001`, a conflict with recovery) or end
/// the session; the query is then asked again, on a new connection if needed. A standby found
/// out of recovery counts as promoted.
fn promote(server: &PgServer) -> KvResult<()> {
    let deadline = Instant::now() + PROMOTE_TIMEOUT;
    let mut admin = admin(server.socket_dir())?;
    let mut asked = false;
    let failure = loop {
        if !asked {
            match admin.query_one("SELECT pg_promote(false)", &[]) {
                Ok(row) if row.get::<_, bool>(0) => asked = true,
                Ok(_) => break "the server could not signal the promotion".to_string(),
                Err(e) if retry(&e) => {}
                // `recovery is not in progress`: promoted already (checked below).
                Err(e) => match in_recovery(&mut admin) {
                    Ok(false) => return Ok(()),
                    _ => break super::describe(&e),
                },
            }
        }
        if asked {
            match in_recovery(&mut admin) {
                Ok(false) => return Ok(()),
                Ok(true) => {}
                Err(e) if retry(&e) => {}
                Err(e) => break super::describe(&e),
            }
        }
        if !server.is_running() {
            break format!("its server (pid {}) exited", server.pid());
        }
        if Instant::now() >= deadline {
            break format!(
                "not promoted within {} s ({})",
                PROMOTE_TIMEOUT.as_secs(),
                replay_position(&mut admin)
            );
        }
        if admin.is_closed() {
            // A failed connection is tried again at the next turn, until the deadline.
            if let Ok(client) = self::admin(server.socket_dir()) {
                admin = client;
            }
        }
        std::thread::sleep(PROMOTE_POLL);
    };
    Err(KvError::backend(
        "postgres",
        format!(
            "cannot promote the standby: {failure} (see its log {})",
            server.log_path().display()
        ),
    ))
}

/// Whether the server is still in recovery (a standby).
fn in_recovery(admin: &mut postgres::Client) -> Result<bool, postgres::Error> {
    admin
        .query_one("SELECT pg_is_in_recovery()", &[])
        .map(|row| row.get::<_, bool>(0))
}

/// Whether a failed query on the standby is worth asking again: replay cancelled it (a
/// conflict with recovery) or ended the session.
fn retry(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    e.is_closed()
        || matches!(
            e.code(),
            Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE
                || *c == SqlState::T_R_DEADLOCK_DETECTED
        )
}

/// Where replay stands against what was received, for a promotion that did not end.
fn replay_position(admin: &mut postgres::Client) -> String {
    admin
        .query_one(
            "SELECT pg_last_wal_replay_lsn()::text, pg_last_wal_receive_lsn()::text",
            &[],
        )
        .map(|row| {
            let (replayed, received): (Option<String>, Option<String>) = (row.get(0), row.get(1));
            format!(
                "replayed up to {}, received up to {}",
                replayed.as_deref().unwrap_or("-"),
                received.as_deref().unwrap_or("-")
            )
        })
        .unwrap_or_else(|e| format!("replay position unknown: {}", super::describe(&e)))
}

/// The store's connection to `server`, through a new delay proxy when `net` asks for one.
pub(super) fn client_config(
    server: &PgServer,
    net: Option<triebench_netdelay::DelaySpec>,
) -> KvResult<(postgres::Config, Option<NetHop>)> {
    match net {
        None => Ok((server.config(), None)),
        Some(spec) => {
            let hop = NetHop::start(&server.socket_dir().join(PG_SOCKET), PG_SOCKET, spec)?;
            let mut config = postgres::Config::new();
            config
                .host_path(hop.dir())
                .user(STORE_ROLE)
                .dbname("postgres");
            Ok((config, Some(hop)))
        }
    }
}

/// A connection as the cluster's bootstrap superuser (peer authentication, this OS user).
fn admin(socket_dir: &Path) -> KvResult<postgres::Client> {
    postgres::Config::new()
        .host_path(socket_dir)
        .user(USER)
        .dbname("postgres")
        .connect_timeout(Duration::from_secs(10))
        .connect(postgres::NoTls)
        .map_err(|e| pg_err("cannot connect to the managed server as its superuser", e))
}

/// Creates the replication role if missing and gives it `secret` as its password; only the
/// SCRAM verifier is sent, so the password reaches neither the server nor its log.
fn set_replication_password(admin: &mut postgres::Client, secret: &str) -> KvResult<()> {
    let verifier = postgres_protocol::password::scram_sha_256(secret.as_bytes());
    let sql = format!(
        "DO $$ BEGIN \
           IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{REPLICATION_ROLE}') THEN \
             CREATE ROLE {REPLICATION_ROLE} LOGIN REPLICATION NOSUPERUSER; \
           END IF; \
         END $$; \
         ALTER ROLE {REPLICATION_ROLE} WITH LOGIN REPLICATION PASSWORD '{verifier}';"
    );
    admin
        .batch_execute(&sql)
        .map_err(|e| pg_err("cannot set up the replication role", e))
}

/// Waits until the primary sees the standby streaming (and, with `sync`, as its synchronous
/// standby); an error quotes where the standby's log is.
fn wait_streaming(admin: &mut postgres::Client, standby: &Standby, sync: bool) -> KvResult<()> {
    let started = Instant::now();
    loop {
        let row = admin
            .query_opt(
                "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1",
                &[&STANDBY_NAME],
            )
            .map_err(|e| pg_err("cannot read pg_stat_replication", e))?;
        if let Some(row) = row {
            let state: Option<String> = row.get(0);
            let sync_state: Option<String> = row.get(1);
            if state.as_deref() == Some("streaming")
                && (!sync || sync_state.as_deref() == Some("sync"))
            {
                return Ok(());
            }
        }
        if !standby.server.is_running() || started.elapsed() > STREAM_TIMEOUT {
            return Err(KvError::PostgresStart(format!(
                "the standby (pid {}) did not {} within {} s; see its log {}",
                standby.server.pid(),
                if sync {
                    "become synchronous"
                } else {
                    "stream from the primary"
                },
                STREAM_TIMEOUT.as_secs(),
                standby.server.log_path().display()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `postgresql.auto.conf` holding `settings` only (values quoted for the file).
fn auto_conf(settings: &[(&str, &str)]) -> Vec<u8> {
    let mut text = String::from("# written by triebench at every start\n");
    for (name, value) in settings {
        text.push_str(&format!("{name} = '{}'\n", value.replace('\'', "''")));
    }
    text.into_bytes()
}

/// Refuses a standby that was promoted (a failover left it a primary of its own): starting it
/// as a standby again would follow a primary it has diverged from.
fn refuse_promoted(standby_dir: &DirHandle) -> KvResult<()> {
    let Some(data) = standby_dir.open_existing_dir(super::server::DATA_DIR) else {
        return Ok(());
    };
    if data.has_file("PG_VERSION") && !data.has_file("standby.signal") {
        return Err(KvError::backend(
            "postgres",
            format!(
                "the standby in {} was promoted (a failover); this pair cannot be reopened \
                 (use a new directory)",
                standby_dir.path().display()
            ),
        ));
    }
    Ok(())
}
