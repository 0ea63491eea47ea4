//! A connection borrowed from the store's pool for one transaction, reader or writer alike:
//! taken when the transaction begins, handed back when it drops (rolled back first if still in
//! a transaction), or closed when it cannot be rolled back, so the pool only ever holds
//! connections outside any transaction. One rule for both kinds of transaction, which each
//! spelt out before.

use rusqlite::Connection;

use super::error::BACKEND;
use super::query::control;
use super::store::SqliteStore;
use crate::error::{KvError, KvResult};

/// A connection of `store`'s pool, held for one transaction and returned on drop.
#[derive(Debug)]
pub(super) struct Pooled<'s> {
    /// The store the connection came from and goes back to.
    pub(super) store: &'s SqliteStore,
    /// Always `Some` until `drop` hands the connection back.
    conn: Option<Connection>,
}

impl<'s> Pooled<'s> {
    /// The store's most recently used idle connection, or a new one.
    pub(super) fn take(store: &'s SqliteStore) -> KvResult<Pooled<'s>> {
        Ok(Pooled {
            store,
            conn: Some(store.take_connection()?),
        })
    }

    /// The connection, for the statements of the transaction holding it.
    pub(super) fn conn(&self) -> KvResult<&Connection> {
        self.conn.as_ref().ok_or_else(|| {
            KvError::backend(
                BACKEND,
                "transaction used after its connection went back to the pool",
            )
        })
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        // Back to the pool outside any transaction; a connection that cannot roll back is
        // closed instead.
        if let Some(conn) = self.conn.take() {
            if conn.is_autocommit() || control(&conn, "ROLLBACK").is_ok() {
                self.store.give_back(conn);
            }
        }
    }
}
