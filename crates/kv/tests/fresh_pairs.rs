//! `FreshStores` of the replicated profiles share one pair: two fresh stores of one
//! `FreshStores` are apart (a schema, a key namespace) on the same primary, each commit still
//! reaches the standby or replica as the profile says (`remote_apply`: readable there when the
//! commit returns, and held while the standby's replay is paused; `WAIT 1`: a commit no replica
//! acknowledges fails), a dead shared server is named, and dropping the stores leaves no server,
//! proxy or directory behind.
#![cfg(any(feature = "postgres-db", feature = "redis-db"))]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::servers::{assert_stopped, get, put};
use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_kv_conformance::TABLES;

/// The tests count this process's servers and directories: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// What is left under `parent`.
fn entries(parent: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// Whether `check` holds within a minute (how long replication may lag on a loaded host).
fn eventually(check: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What two nested fresh stores saw: A commits `a`, then B (opened while A is open) commits
/// `b`; each reads both keys, and `reached` says whether each commit is on the other server.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    a_own: Option<Vec<u8>>,
    a_other: Option<Vec<u8>>,
    b_own: Option<Vec<u8>>,
    b_other: Option<Vec<u8>>,
    a_reached: bool,
    b_reached: bool,
}

impl Seen {
    fn expected() -> Seen {
        Seen {
            a_own: Some(b"1".to_vec()),
            a_other: None,
            b_own: Some(b"2".to_vec()),
            b_other: None,
            a_reached: true,
            b_reached: true,
        }
    }
}

struct Outer<'a> {
    stores: &'a FreshStores,
    reached: &'a dyn Fn(&[u8]) -> bool,
}

impl StoreVisitor for Outer<'_> {
    type Output = Seen;

    fn visit<S: Store + 'static>(self, a: S) -> Seen {
        put(&a, b"a", b"1").unwrap();
        let a_reached = (self.reached)(b"a");
        let (b_other, b_own, b_reached) = self
            .stores
            .run(
                TABLES,
                Inner {
                    reached: self.reached,
                },
            )
            .unwrap();
        Seen {
            a_own: get(&a, b"a"),
            a_other: get(&a, b"b"),
            b_own,
            b_other,
            a_reached,
            b_reached,
        }
    }
}

struct Inner<'a> {
    reached: &'a dyn Fn(&[u8]) -> bool,
}

impl StoreVisitor for Inner<'_> {
    type Output = (Option<Vec<u8>>, Option<Vec<u8>>, bool);

    fn visit<S: Store + 'static>(self, b: S) -> Self::Output {
        let other = get(&b, b"a");
        put(&b, b"b", b"2").unwrap();
        let reached = (self.reached)(b"b");
        (other, get(&b, b"b"), reached)
    }
}

/// Commits one key; the commit's error as text.
struct Put;

impl StoreVisitor for Put {
    type Output = Result<(), String>;

    fn visit<S: Store + 'static>(self, store: S) -> Result<(), String> {
        put(&store, b"k", b"v").map_err(|e| e.to_string())
    }
}

#[cfg(feature = "postgres-db")]
mod postgres_pairs {
    use super::*;
    use triebench_kv::postgres::PgServer;

    /// The values of `key` in the `main` table of every store's schema on `server` (the
    /// standby), read as the store's role.
    fn on_server(server: &PgServer, key: &[u8]) -> Vec<Vec<u8>> {
        let mut client = server.config().connect(postgres::NoTls).unwrap();
        let schemas: Vec<String> = client
            .query(
                "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'tb\\_%'",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut found = Vec::new();
        for s in schemas {
            let sql = format!("SELECT v FROM \"{s}\".main WHERE k = $1");
            if let Ok(Some(row)) = client.query_opt(&sql, &[&key]) {
                found.push(row.get::<_, Vec<u8>>(0));
            }
        }
        found
    }

    /// A connection to `server` as the cluster's superuser (this OS user's peer map).
    fn superuser(server: &PgServer) -> postgres::Client {
        postgres::Config::new()
            .host_path(server.socket_dir())
            .user("triebench")
            .dbname("postgres")
            .connect(postgres::NoTls)
            .unwrap()
    }

    /// Pauses the standby's replay, commits, and says whether the commit returned while the
    /// replay stayed paused: after a second with `wait_for_it` false, else within a minute.
    struct PausedCommit<'a> {
        standby: &'a PgServer,
        wait_for_it: bool,
    }

    impl StoreVisitor for PausedCommit<'_> {
        type Output = bool;

        fn visit<S: Store + 'static>(self, store: S) -> bool {
            let mut admin = superuser(self.standby);
            admin.batch_execute("SELECT pg_wal_replay_pause()").unwrap();
            std::thread::scope(|scope| {
                let commit = scope.spawn(|| put(&store, b"paused", b"1"));
                let returned = if self.wait_for_it {
                    eventually(|| commit.is_finished())
                } else {
                    std::thread::sleep(Duration::from_secs(1));
                    commit.is_finished()
                };
                admin
                    .batch_execute("SELECT pg_wal_replay_resume()")
                    .unwrap();
                commit.join().unwrap().unwrap();
                returned
            })
        }
    }

    #[test]
    fn standby_profiles_share_one_pair_and_keep_their_commit_level() {
        let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        if std::env::var_os("POSTGRES_URL").is_some() {
            return;
        }
        let parent = tempfile::tempdir().unwrap();

        // postgres-sync-standby: the standby is the primary's synchronous one, each commit
        // reaches it, and the two stores do not see each other.
        let stores = FreshStores::new(Profile::PostgresSyncStandby, parent.path()).unwrap();
        let primary = stores.postgres_server().expect("a shared primary");
        let standby = stores.postgres_standby().expect("a shared standby");
        let pids = [primary.pid(), standby.pid()];
        let sync_state: String = superuser(primary)
            .query_one(
                "SELECT sync_state::text FROM pg_stat_replication WHERE application_name = $1",
                &[&triebench_kv::postgres::STANDBY_NAME],
            )
            .unwrap()
            .get(0);
        assert_eq!(sync_state, "sync");
        let reached = |key: &[u8]| eventually(|| !on_server(standby, key).is_empty());
        let seen = stores
            .run(
                TABLES,
                Outer {
                    stores: &stores,
                    reached: &reached,
                },
            )
            .unwrap();
        assert_eq!(seen, Seen::expected());
        // `on`, not `remote_apply`: a commit returns once flushed on the standby, replayed or
        // not.
        let returned = stores
            .run(
                TABLES,
                PausedCommit {
                    standby,
                    wait_for_it: true,
                },
            )
            .unwrap();
        assert!(
            returned,
            "a sync-standby commit waited for the standby's replay"
        );
        // The fresh stores' schemas are gone with them, on the standby too.
        assert!(eventually(
            || on_server(standby, b"a").is_empty() && on_server(standby, b"b").is_empty()
        ));
        drop(stores);
        assert_stopped(&pids, &["pg"]);
        assert!(
            entries(parent.path()).is_empty(),
            "{:?}",
            entries(parent.path())
        );

        // postgres-remote-apply through the delay proxies: a commit is readable on the standby
        // the moment it returns, and does not return while the standby's replay is paused.
        std::env::set_var(triebench_kv::net_hop::NET_RTT_ENV, "200us");
        let stores = FreshStores::new(Profile::PostgresRemoteApply, parent.path());
        std::env::remove_var(triebench_kv::net_hop::NET_RTT_ENV);
        let stores = stores.unwrap();
        // One proxy for the stores, one for the replication link.
        let net = common::servers::private_dirs("net");
        assert_eq!(net.len(), 2, "{net:?}");
        let primary = stores.postgres_server().unwrap();
        let standby = stores.postgres_standby().unwrap();
        let pids = [primary.pid(), standby.pid()];
        let reached = |key: &[u8]| !on_server(standby, key).is_empty();
        let seen = stores
            .run(
                TABLES,
                Outer {
                    stores: &stores,
                    reached: &reached,
                },
            )
            .unwrap();
        assert_eq!(seen, Seen::expected());
        let returned = stores
            .run(
                TABLES,
                PausedCommit {
                    standby,
                    wait_for_it: false,
                },
            )
            .unwrap();
        assert!(
            !returned,
            "a remote_apply commit returned before the standby replayed it"
        );

        // A dead shared primary is named, and its directory (the logs) kept.
        primary.kill();
        let err = stores.try_run(TABLES, Put).unwrap_err().to_string();
        assert!(
            err.contains(&format!("the shared primary (pid {}) has exited", pids[0])),
            "{err}"
        );
        drop(stores);
        assert_stopped(&pids, &["pg", "net"]);
        let [kept] = entries(parent.path()).try_into().unwrap();
        let log = kept.join("postgres.log");
        assert!(
            log.is_file() && err.contains(&log.display().to_string()),
            "{err}"
        );
    }
}

#[cfg(feature = "redis-db")]
mod redis_pair {
    use super::*;
    use triebench_kv::redis::RedisServer;

    /// Every value of `key` in a `main` table of any store on `server` (the replica).
    fn on_server(server: &RedisServer, key: &[u8]) -> Vec<Vec<u8>> {
        let client = redis::Client::open(server.url()).unwrap();
        let mut con = client.get_connection().unwrap();
        let tables: Vec<Vec<u8>> = redis::cmd("KEYS")
            .arg("tb:*main:v")
            .query(&mut con)
            .unwrap();
        tables
            .iter()
            .filter_map(|t| {
                redis::cmd("HGET")
                    .arg(t)
                    .arg(key)
                    .query::<Option<Vec<u8>>>(&mut con)
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn replica_wait_shares_one_pair_and_waits_for_the_replica() {
        let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        if std::env::var_os("REDIS_URL").is_some() {
            return;
        }
        let parent = tempfile::tempdir().unwrap();

        // Two stores apart on one primary; each commit is on the replica when it returns.
        let stores = FreshStores::new(Profile::RedisReplicaWait, parent.path()).unwrap();
        let primary = stores.redis_server().expect("a shared primary");
        let replica = stores.redis_replica().expect("a shared replica");
        let pids = [primary.pid(), replica.pid()];
        let reached = |key: &[u8]| !on_server(replica, key).is_empty();
        let seen = stores
            .run(
                TABLES,
                Outer {
                    stores: &stores,
                    reached: &reached,
                },
            )
            .unwrap();
        assert_eq!(seen, Seen::expected());
        // The fresh stores' keys are gone with them, on the replica too.
        assert!(eventually(
            || on_server(replica, b"a").is_empty() && on_server(replica, b"b").is_empty()
        ));
        drop(stores);
        assert_stopped(&pids, &["redis", "net"]);
        assert!(
            entries(parent.path()).is_empty(),
            "{:?}",
            entries(parent.path())
        );

        // Without the replica, a fresh store's commit is an error (WAIT 1 reached no replica),
        // and the dead replica is named.
        let stores = FreshStores::new(Profile::RedisReplicaWait, parent.path()).unwrap();
        assert_eq!(stores.run(TABLES, Put).unwrap(), Ok(()));
        let replica = stores.redis_replica().unwrap();
        let pids = [stores.redis_server().unwrap().pid(), replica.pid()];
        replica.kill().unwrap();
        let err = stores.try_run(TABLES, Put).unwrap_err().to_string();
        assert!(err.contains("did not acknowledge"), "{err}");
        assert!(
            err.contains(&format!("the shared replica (pid {}) has exited", pids[1])),
            "{err}"
        );
        drop(stores);
        assert_stopped(&pids, &["redis", "net"]);
    }
}
