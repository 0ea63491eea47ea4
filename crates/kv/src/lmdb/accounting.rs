//! Where an LMDB store's bytes go ([`Store::space`](crate::Store::space)): each named
//! database's pages from `mdb_stat` (leaf pages hold its entries, branch pages find them,
//! overflow pages hold values larger than a page allows inline), its keys and values summed
//! by one cursor pass, the freelist's pages, and the rest of the used pages (the two meta
//! pages, the main database naming the others, the freelist database itself).

use lmdb::{Cursor, Transaction};
use triebench_record::space::{StoreSpace, TableSpace};

use super::LmdbStore;
use crate::error::KvResult;

impl LmdbStore {
    /// See [`Store::space`](crate::Store::space).
    pub(super) fn account_space(&self) -> KvResult<StoreSpace> {
        let page = self.page_size;
        let txn = self.env.begin_ro_txn().map_err(|e| self.error(e))?;
        let mut tables = Vec::with_capacity(self.dbs.len());
        for (name, db) in self.names.iter().zip(&self.dbs) {
            let mut stat = lmdb_sys::MDB_stat {
                ms_psize: 0,
                ms_depth: 0,
                ms_branch_pages: 0,
                ms_leaf_pages: 0,
                ms_overflow_pages: 0,
                ms_entries: 0,
            };
            // SAFETY: a live read transaction of this environment and one of its open
            // databases; mdb_stat only fills `stat`.
            let rc = unsafe { lmdb_sys::mdb_stat(txn.txn(), db.dbi(), &mut stat) };
            if rc != 0 {
                return Err(self.error(lmdb::Error::from_err_code(rc)));
            }
            let (mut key_bytes, mut value_bytes) = (0u64, 0u64);
            let mut cursor = txn.open_ro_cursor(*db).map_err(|e| self.error(e))?;
            for entry in cursor.iter_start() {
                let (key, value) = entry.map_err(|e| self.error(e))?;
                key_bytes += key.len() as u64;
                value_bytes += value.len() as u64;
            }
            drop(cursor);
            let pages = (stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages) as u64;
            let stored = pages * page;
            let index = stat.ms_branch_pages as u64 * page;
            let overflow = stat.ms_overflow_pages as u64 * page;
            tables.push(TableSpace {
                table: name.clone(),
                entries: stat.ms_entries as u64,
                key_bytes,
                value_bytes,
                stored_bytes: stored,
                // Estimated: a leaf entry carries an 8-byte node header and a 2-byte slot
                // besides its key and inline value; what is left of the leaf pages is unused.
                unused_bytes: (stat.ms_leaf_pages as u64 * page).saturating_sub(leaf_payload(
                    stat.ms_entries as u64,
                    key_bytes,
                    value_bytes,
                    overflow,
                )),
                index_bytes: index,
                overflow_bytes: overflow,
            });
        }
        drop(txn);
        let free = self.env.freelist().map_err(|e| self.error(e))? as u64 * page;
        let used = self.committed_bytes()?;
        let in_tables: u64 = tables.iter().map(|t| t.stored_bytes).sum();
        Ok(StoreSpace {
            page_bytes: page,
            tables,
            free_bytes: free,
            other_bytes: used.saturating_sub(in_tables + free),
        })
    }
}

/// Bytes the leaf pages spend on `entries` entries, estimated: each entry's 8-byte header and
/// 2-byte slot, its key, and its value unless it went to overflow pages. Which values did is not
/// counted per entry; the overflow pages' bytes are taken to be values (they are, but for each
/// value's 16-byte header and its last page's tail), so the estimate errs toward less unused.
fn leaf_payload(entries: u64, key_bytes: u64, value_bytes: u64, overflow_bytes: u64) -> u64 {
    entries * 10 + key_bytes + value_bytes.saturating_sub(overflow_bytes)
}
