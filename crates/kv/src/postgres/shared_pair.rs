//! One replicated pair (see `standby`) whose primary holds many stores, each in a schema of its
//! own: what [`FreshStores`](crate::FreshStores) gives the standby profiles, so that each fresh
//! store does not pay for an `initdb`, a `pg_basebackup` and two server starts.
//!
//! A store of the shared pair commits exactly as one on a pair of its own: its session sets the
//! mode's `synchronous_commit` (`on`, or `remote_apply`), the primary names the standby
//! synchronous (unless the mode is asynchronous), and its connection goes through the same
//! delay proxy (`--net-rtt`) as the replication link's own (`TRIEBENCH_STANDBY_RTT`). The pair,
//! its proxies and its directories belong to the [`SharedPair`], not to the stores.

use std::path::Path;
use std::sync::Mutex;

use crate::content_cache::{ContentCache, DEFAULT_BUDGET};
use crate::error::KvResult;
use crate::net_hop::NetHop;
use crate::store::validate_tables;

use super::standby::{client_config, start_pair, Standby};
use super::{schema, PgServer, PgStore, StandbyMode};

/// A replicated pair shared by stores, each a schema on its primary. Dropped in field order:
/// the stores' delay proxy, the primary (which ships what it has before it stops), then the
/// standby and its link.
#[derive(Debug)]
pub(crate) struct SharedPair {
    /// The delay proxy the stores reach the primary through (`--net-rtt`), if any.
    _hop: Option<NetHop>,
    config: postgres::Config,
    mode: StandbyMode,
    primary: PgServer,
    standby: Standby,
}

impl SharedPair {
    /// Starts the pair in `dir` (primary in `<dir>/pgdata`, standby in `<dir>/standby`), the
    /// standby streaming through `link`'s delay, the stores reaching the primary through `net`'s.
    pub(crate) fn start(
        dir: &Path,
        mode: StandbyMode,
        net: Option<triebench_netdelay::DelaySpec>,
        link: Option<triebench_netdelay::DelaySpec>,
    ) -> KvResult<SharedPair> {
        let (primary, standby) = start_pair(dir, mode, link)?;
        let (config, hop) = client_config(&primary, net)?;
        Ok(SharedPair {
            _hop: hop,
            config,
            mode,
            primary,
            standby,
        })
    }

    /// Opens (creating if needed) the store of directory `dir` with `tables`: a schema on the
    /// primary, named in `<dir>/postgres-schema`, in a session with the mode's
    /// `synchronous_commit`.
    pub(crate) fn open(&self, dir: &Path, tables: &[&str]) -> KvResult<PgStore> {
        let names = validate_tables(tables)?;
        let schema = schema::schema_for_dir(dir)?;
        let conn = schema::connect(
            self.config.clone(),
            &schema,
            &names,
            self.mode.synchronous_commit(),
        )?;
        Ok(PgStore {
            conn: Mutex::new(conn),
            names,
            writer_lock: Mutex::new(()),
            schema,
            content: Some(ContentCache::new(DEFAULT_BUDGET)),
            hop: None,
            trips: std::sync::atomic::AtomicU64::new(0),
            server: None,
            standby: None,
        })
    }

    /// Drops the schema of the store of `dir`, with its tables (the drop reaches the standby
    /// too). No store for `dir`: nothing.
    pub(crate) fn discard(&self, dir: &Path) -> KvResult<()> {
        match schema::existing_schema(dir) {
            Some(name) => schema::drop_schema(self.primary.config(), &name),
            None => Ok(()),
        }
    }

    /// The primary.
    pub(crate) fn primary(&self) -> &PgServer {
        &self.primary
    }

    /// The standby.
    pub(crate) fn standby(&self) -> &PgServer {
        self.standby.server()
    }
}
