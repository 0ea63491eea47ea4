//! One primary and replica (see `replica`) holding many stores, each under its own key
//! namespace (`namespace`: derived from the store's directory): what
//! [`FreshStores`](crate::FreshStores) gives `redis-replica-wait`, so that each fresh store does
//! not start a pair of servers and wait for the replica's first sync.
//!
//! A store of the shared pair commits exactly as one with a pair of its own: `WAIT 1` after
//! each commit (a commit no replica acknowledges is an error), through the same delay proxy to
//! the primary (`--net-rtt`) and the same replication link (`TRIEBENCH_STANDBY_RTT`), and keeps
//! the same node cache (no other client writes its namespace). The servers, proxies and their
//! directories belong to the [`SharedPair`].

use std::path::Path;

use super::conn::Lease;
use super::replica::WAIT_TIMEOUT;
use super::{namespace, Assembly, RedisOptions, RedisServer, RedisStore};
use crate::error::{KvError, KvResult};
use crate::store::validate_tables;

/// A primary and its replica shared by stores, each a key namespace on the primary.
#[derive(Debug)]
pub(crate) struct SharedPair {
    /// A store without tables holding the servers, the proxies and the replication link.
    host: RedisStore,
    /// The primary's address (through the delay proxy when there is one), password included.
    url: String,
}

impl SharedPair {
    /// Starts the primary in `dir`, the stores reaching it through `net`'s delay, and its
    /// replica in `<dir>/replica`, linked through `link`'s.
    pub(crate) fn start(
        dir: &Path,
        net: Option<triebench_netdelay::DelaySpec>,
        link: Option<triebench_netdelay::DelaySpec>,
    ) -> KvResult<SharedPair> {
        std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
        let dir = dir
            .canonicalize()
            .map_err(|e| KvError::io("resolve directory", dir, e))?;
        let options = RedisOptions {
            url: None,
            append_only: false,
            net,
        };
        let (server, url, hop) = RedisStore::start_managed(&dir, &options)?;
        let how = Assembly {
            verify_aof: false,
            cached: false,
            shared_server: None,
        };
        let mut host = RedisStore::assemble(dir, Vec::new(), Some(server), url.clone(), hop, how)?;
        host.attach_replica(link)?;
        Ok(SharedPair { host, url })
    }

    /// Opens the store of directory `dir` (created if missing) with `tables`: keys under its
    /// namespace on the primary, every commit waiting for the replica.
    pub(crate) fn open(&self, dir: &Path, tables: &[&str]) -> KvResult<RedisStore> {
        let names = validate_tables(tables)?;
        std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
        let dir = dir
            .canonicalize()
            .map_err(|e| KvError::io("resolve directory", dir, e))?;
        let how = Assembly {
            verify_aof: false,
            cached: true,
            shared_server: self.primary(),
        };
        let mut store = RedisStore::assemble(dir, names, None, self.url.clone(), None, how)?;
        store.shared.wait = Some(WAIT_TIMEOUT);
        Ok(store)
    }

    /// Deletes the keys of the store of `dir` with `tables` (the deletion is replicated too).
    pub(crate) fn discard(&self, dir: &Path, tables: &[&str]) -> KvResult<()> {
        let names = validate_tables(tables)?;
        let Ok(dir) = dir.canonicalize() else {
            return Ok(());
        };
        let keys = namespace::table_keys(&namespace::prefix_for(&dir), &names);
        let lease = Lease::new(&self.host.shared.pool)?;
        lease.run("DEL", |con| {
            let mut del = redis::cmd("DEL");
            for table in &keys {
                del.arg(&table.values).arg(&table.order).arg(&table.pending);
            }
            del.query::<()>(con)
        })
    }

    /// The primary (a host store always has it).
    pub(crate) fn primary(&self) -> Option<&RedisServer> {
        self.host.server.as_ref()
    }

    /// The replica.
    pub(crate) fn replica(&self) -> Option<&RedisServer> {
        self.host.replica_server()
    }
}
