//! Where a PostgreSQL store's bytes go ([`Store::space`](crate::Store::space)), from the
//! server's own size functions: each table's heap (`pg_relation_size`: its rows, with the free
//! space inside its pages), its primary-key index (`pg_indexes_size`: a second copy of every
//! key), and its TOAST table with that table's index (values PostgreSQL compressed or moved out
//! of line). The server's WAL and catalogs are the data directory's, shared by every schema on a
//! server, so they are not any one store's; the growth curve's bytes on disk include them.

use triebench_record::space::{StoreSpace, TableSpace};

use super::{schema, PgStore};
use crate::error::KvResult;

/// PostgreSQL's block size unless the server says otherwise (`block_size`).
const DEFAULT_BLOCK: u64 = 8192;

impl PgStore {
    /// See [`Store::space`](crate::Store::space).
    pub(super) fn account_space(&self) -> KvResult<StoreSpace> {
        let mut conn = self.lock();
        let client = &mut conn.client;
        let block = client
            .query_one("SELECT current_setting('block_size')::bigint", &[])
            .map(|row| row.get::<_, i64>(0) as u64)
            .unwrap_or(DEFAULT_BLOCK);
        let mut tables = Vec::with_capacity(self.names.len());
        for name in &self.names {
            let qualified = format!("{}.{}", schema::quote(&self.schema), schema::quote(name));
            let sizes = client
                .query_one(
                    "SELECT pg_relation_size(c.oid), pg_indexes_size(c.oid), \
                     coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) \
                     FROM pg_class c WHERE c.oid = $1::text::regclass",
                    &[&qualified],
                )
                .map_err(|e| self.error("read the table's sizes", e))?;
            let (heap, index, toast) = (
                sizes.get::<_, i64>(0) as u64,
                sizes.get::<_, i64>(1) as u64,
                sizes.get::<_, i64>(2) as u64,
            );
            // `qualified` is two quoted identifiers: it cannot break out of the statement.
            let data = client
                .query_one(
                    &format!(
                        "SELECT count(*), coalesce(sum(octet_length(k)), 0)::bigint, \
                         coalesce(sum(octet_length(v)), 0)::bigint FROM {qualified}"
                    ),
                    &[],
                )
                .map_err(|e| self.error("sum the table's keys and values", e))?;
            let (entries, key_bytes, value_bytes) = (
                data.get::<_, i64>(0) as u64,
                data.get::<_, i64>(1) as u64,
                data.get::<_, i64>(2) as u64,
            );
            tables.push(TableSpace {
                table: name.clone(),
                entries,
                key_bytes,
                value_bytes,
                stored_bytes: heap + index + toast,
                // Row headers (23 bytes and alignment per row), page headers and the free space
                // inside the heap's pages: not told apart without the pgstattuple extension.
                unused_bytes: heap.saturating_sub(key_bytes + value_bytes),
                index_bytes: index,
                overflow_bytes: toast,
            });
        }
        Ok(StoreSpace {
            page_bytes: block,
            tables,
            free_bytes: 0,
            other_bytes: 0,
        })
    }
}
