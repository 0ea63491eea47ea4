//! `redis-replica-wait`: the store's managed `redis-server` plus a replica of it, fed by Redis's
//! own replication, and `WAIT 1 <timeout>` after each commit; a commit the replica did not
//! acknowledge in time is an error, never silent.
//!
//! - **The link**: Redis replicates only over TCP (`replicaof host port`), so the replica dials
//!   a delay proxy listening on a fresh port of `127.0.0.1`, which forwards to the primary's
//!   unix socket; with `--net-rtt` (or `TRIEBENCH_STANDBY_RTT`) it delays that link, else it
//!   proxies without delay. The primary itself still listens on its private unix socket only.
//! - **Admission**: any local user can connect to the port, but the proxy admits only the
//!   replica's own process (`replica_peer`: the client socket must be one the replica's pid
//!   holds); any other connection is closed before a byte is forwarded, and a proxied
//!   connection's descriptors and threads go when it ends.
//! - **Authentication**: as a second lock, the replica logs in as the ACL
//!   user `triebench_repl`, which may only replicate (`+psync +replconf +ping +sync`), with a
//!   password drawn at every start. It is set on the primary by `ACL SETUSER` over the store's
//!   private socket and given to the replica in its 0600 config file (`masterauth`), never on
//!   a command line or printed. The replica has its own `requirepass`, as every managed server.
//! - The replica's data directory is `<dir>/replica`; both servers keep nothing on disk.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use triebench_netdelay::{DelayProxy, DelaySpec};

use super::conn::Lease;
use super::replica_peer::{is_held_by, ReplicaPid};
use super::{RedisOptions, RedisServer, RedisStore};
use crate::dir_handle::DirHandle;
use crate::error::{KvError, KvResult};

/// Sub-directory of the store's directory holding the replica's log.
pub const REPLICA_DIR: &str = "replica";
/// The ACL user the replica logs in to the primary as.
pub const REPLICA_USER: &str = "triebench_repl";
/// How long `WAIT 1` after a commit waits for the replica.
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the replica may take to sync with the primary at start.
const LINK_TIMEOUT: Duration = Duration::from_secs(60);

/// The replica of a store and its link; the link is dropped first.
#[derive(Debug)]
pub(crate) struct Replica {
    link: Mutex<Option<DelayProxy>>,
    server: RedisServer,
}

impl RedisStore {
    /// Opens the store with a replica (see the module's notes): [`RedisStore::open`] on a
    /// managed server in `dir`, then a replica in `<dir>/replica` reached through a loopback
    /// delay proxy with `link`'s delay (`None`: none). `options.url` is refused: the pair is this
    /// process's own.
    pub fn open_replicated(
        dir: &std::path::Path,
        tables: &[&str],
        options: RedisOptions,
        link: Option<DelaySpec>,
    ) -> KvResult<RedisStore> {
        if options.url.is_some() {
            return Err(KvError::backend(
                "redis",
                "redis-replica-wait starts its own primary and replica; it cannot use REDIS_URL",
            ));
        }
        let mut store = Self::open(dir, tables, options)?;
        store.attach_replica(link)?;
        Ok(store)
    }

    /// Starts a replica of this store's managed server in `<dir>/replica`, linked through a
    /// loopback delay proxy with `link`'s delay (`None`: none), and makes every commit wait for
    /// it (`WAIT 1`).
    pub(super) fn attach_replica(&mut self, link: Option<DelaySpec>) -> KvResult<()> {
        let store = self;
        let Some(primary) = &store.server else {
            return Err(KvError::backend("redis", "no managed server to replicate"));
        };
        let secret = crate::secret::random_secret()?;
        {
            let lease = Lease::new(&store.shared.pool)?;
            lease.run("ACL SETUSER", |con| {
                redis::cmd("ACL")
                    .arg("SETUSER")
                    .arg(REPLICA_USER)
                    .arg("reset")
                    .arg("on")
                    .arg(format!(">{secret}"))
                    .arg("+psync")
                    .arg("+replconf")
                    .arg("+ping")
                    .arg("+sync")
                    .query::<()>(con)
            })?;
        }
        let spec = link.unwrap_or_else(|| DelaySpec::from_rtt(Duration::ZERO));
        // Admits only the replica's own process (`replica_peer`): other local users can
        // connect to the port, but are closed before a byte reaches the primary.
        let replica_pid: ReplicaPid = Arc::new(AtomicU32::new(0));
        let admitted = replica_pid.clone();
        let proxy = DelayProxy::start_tcp_admitting(
            primary.socket_path(),
            spec,
            Box::new(move |stream| is_held_by(stream, &admitted)),
        )
        .map_err(|e| KvError::io("start the replication proxy for", primary.socket_path(), e))?;
        let Some(addr) = proxy.tcp_addr() else {
            return Err(KvError::backend(
                "redis",
                "the replication proxy has no address",
            ));
        };
        // `repl-diskless-load on-empty-db`: the replica loads the primary's snapshot straight
        // from the link, so it writes no `dump.rdb` (nor its temp file) anywhere.
        let config = format!(
            "replicaof {} {}\nmasteruser {REPLICA_USER}\nmasterauth {secret}\n\
             repl-diskless-load on-empty-db\n",
            addr.ip(),
            addr.port()
        );
        // `<dir>/replica` made and opened through a handle on the store's directory: a link
        // planted there is refused, never followed.
        let data = DirHandle::open_top(&store.dir)?.create_dir(REPLICA_DIR, None)?;
        let server = RedisServer::start_with_config(data, false, &config)?;
        replica_pid.store(server.pid(), Ordering::Release);
        wait_linked(&server)?;
        store.shared.wait = Some(WAIT_TIMEOUT);
        store.replica = Some(Box::new(Replica {
            link: Mutex::new(Some(proxy)),
            server,
        }));
        Ok(())
    }

    /// The replica's server, `None` for a store without one.
    pub fn replica_server(&self) -> Option<&RedisServer> {
        self.replica.as_ref().map(|r| &r.server)
    }

    /// Loses the primary's host: cuts the replication link (what its proxy still held is
    /// dropped) and kills the primary (SIGKILL). The store's commits fail from then on.
    pub fn kill_primary(&self) {
        self.cut_replica_link();
        if let Some(server) = &self.server {
            let _ = server.kill();
        }
    }

    /// Fails over: drops this store's connections and primary, promotes the replica
    /// (`REPLICAOF NO ONE`) and returns a store on it (through a new delay proxy when this one
    /// had one), without a replica.
    pub fn fail_over(self) -> KvResult<RedisStore> {
        let RedisStore {
            shared,
            dir,
            hop,
            server,
            replica,
            ..
        } = self;
        let Some(replica) = replica else {
            return Err(KvError::backend(
                "redis",
                "this store has no replica to fail over to",
            ));
        };
        let names = shared.names.clone();
        let cached = shared.cache.is_some();
        let net = hop.as_ref().map(|h| h.spec());
        drop(shared);
        drop(hop);
        drop(server);
        let Replica { link, server } = *replica;
        drop(link.into_inner());
        let client = redis::Client::open(server.url())
            .map_err(|e| KvError::backend("redis", format!("bad replica address: {e}")))?;
        client
            .get_connection()
            .and_then(|mut con| {
                redis::cmd("REPLICAOF")
                    .arg("NO")
                    .arg("ONE")
                    .query::<()>(&mut con)
            })
            .map_err(|e| {
                KvError::backend(
                    "redis",
                    format!(
                        "cannot promote the replica: {e} (see its log {})",
                        server.log_path().display()
                    ),
                )
            })?;
        let mut url = server.url().to_string();
        let mut new_hop = None;
        if let Some(spec) = net {
            let socket = server.socket_path();
            let h = crate::net_hop::NetHop::start(socket, "redis.sock", spec)?;
            url = url.replace(
                &socket.display().to_string(),
                &h.listen_path().display().to_string(),
            );
            new_hop = Some(h);
        }
        let how = super::Assembly {
            verify_aof: false,
            cached,
            shared_server: None,
        };
        RedisStore::assemble(dir, names, Some(server), url, new_hop, how)
    }

    /// Cuts the link between the primary and the replica (what the proxy still held is
    /// dropped): the next commit's `WAIT` finds no replica. For tests and fault runs.
    pub fn cut_replica_link(&self) {
        if let Some(replica) = &self.replica {
            drop(
                replica
                    .link
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .take(),
            );
        }
    }
}

/// `WAIT 1 <timeout>` after a commit: an error unless the replica acknowledged it.
pub(super) fn wait_for_replica(lease: &Lease<'_>, timeout: Duration) -> KvResult<()> {
    let acked: i64 = lease.run("WAIT", |con| {
        redis::cmd("WAIT")
            .arg(1)
            .arg(timeout.as_millis() as u64)
            .query(con)
    })?;
    if acked < 1 {
        return Err(KvError::backend(
            "redis",
            format!(
                "the replica did not acknowledge the commit within {} ms (WAIT 1 returned \
                 {acked}): it is applied on the primary but not known to be on the replica",
                timeout.as_millis()
            ),
        ));
    }
    Ok(())
}

/// Waits until the replica reports its link to the primary up (`master_link_status:up`).
fn wait_linked(server: &RedisServer) -> KvResult<()> {
    let started = Instant::now();
    let client = redis::Client::open(server.url())
        .map_err(|e| KvError::backend("redis", format!("bad replica address: {e}")))?;
    loop {
        let info: Option<String> = client
            .get_connection()
            .ok()
            .and_then(|mut con| redis::cmd("INFO").arg("replication").query(&mut con).ok());
        if info.is_some_and(|i| i.contains("master_link_status:up")) {
            return Ok(());
        }
        if started.elapsed() > LINK_TIMEOUT {
            return Err(KvError::RedisServerStart(format!(
                "the replica (pid {}) did not sync with the primary within {} s; see its log {}",
                server.pid(),
                LINK_TIMEOUT.as_secs(),
                server.log_path().display()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
