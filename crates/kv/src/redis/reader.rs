//! Read transactions: read-committed views over one leased connection.

use std::ops::ControlFlow;

use super::committed::Shared;
use super::conn::Lease;
use super::liveness::Liveness;
use crate::error::KvResult;
use crate::range::KeyRange;
use crate::store::{check_table, ReadTx, Table};

/// A read transaction on a [`RedisStore`](super::RedisStore).
///
/// Redis has no snapshots, so a reader is read-committed: each call sees whole commits only (a
/// commit is one atomic script), but two calls of one reader may see different commits, and a
/// scan longer than one page (1000 keys or 4 MiB) may straddle a commit.
#[derive(Debug)]
pub struct RedisReader<'s> {
    pub(super) shared: &'s Shared,
    pub(super) lease: Lease<'s>,
    /// The managed server, whose death cached answers must not hide.
    pub(super) liveness: Liveness<'s>,
}

impl ReadTx for RedisReader<'_> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let i = check_table(table, self.shared.names.len())?;
        self.shared.get_with(&self.lease, &self.liveness, i, key, f)
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let i = check_table(table, self.shared.names.len())?;
        self.shared.count(&self.lease, i)
    }

    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        let i = check_table(table, self.shared.names.len())?;
        self.shared
            .get_many_with(&self.lease, &self.liveness, i, keys, f)
    }

    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        let asks = asks
            .iter()
            .map(|&(table, keys)| Ok((check_table(table, self.shared.names.len())?, keys)))
            .collect::<KvResult<Vec<_>>>()?;
        self.shared
            .get_many_across(&self.lease, &self.liveness, &asks, f)
    }

    fn reads_are_round_trips(&self) -> bool {
        true
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let i = check_table(table, self.shared.names.len())?;
        let mut pages = self.shared.pages(&self.lease, i, range);
        while let Some((key, value)) = pages.next_entry()? {
            if visit(&key, &value).is_break() {
                break;
            }
        }
        Ok(())
    }
}
