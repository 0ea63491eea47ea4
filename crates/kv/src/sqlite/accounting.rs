//! Where a SQLite store's bytes go ([`Store::space`](crate::Store::space)), from SQLite's own
//! `dbstat` table (compiled into the bundled library): each declared table's b-tree (its leaf
//! pages hold the rows, interior pages find them, overflow pages hold a row's tail that did not
//! fit), its head index (`<table>:head`, each key's first 8 bytes) and its spill table with that
//! table's key index, the freelist, and the rest of the file and its WAL or journal.

use rusqlite::Connection;
use triebench_record::space::{StoreSpace, TableSpace};

use super::schema::{head_index, spill_name};
use super::SqliteStore;
use crate::error::KvResult;

/// One b-tree's pages as `dbstat` sums them.
struct Btree {
    bytes: u64,
    unused: u64,
    interior: u64,
    overflow: u64,
}

impl SqliteStore {
    /// See [`Store::space`](crate::Store::space).
    pub(super) fn account_space(&self) -> KvResult<StoreSpace> {
        let conn = self.take_connection()?;
        let result = self.account_with(&conn);
        self.give_back(conn);
        result
    }

    fn account_with(&self, conn: &Connection) -> KvResult<StoreSpace> {
        let err = |e| self.err(e);
        let page: u64 = conn
            .query_row("PRAGMA page_size", [], |row| row.get::<_, i64>(0))
            .map_err(err)? as u64;
        let free_pages: u64 = conn
            .query_row("PRAGMA freelist_count", [], |row| row.get::<_, i64>(0))
            .map_err(err)? as u64;
        let mut btrees = std::collections::BTreeMap::<String, Btree>::new();
        let mut stmt = conn
            .prepare(
                "SELECT name, sum(pgsize), sum(unused), \
                 sum(CASE WHEN pagetype = 'internal' THEN pgsize ELSE 0 END), \
                 sum(CASE WHEN pagetype = 'overflow' THEN pgsize ELSE 0 END) \
                 FROM dbstat GROUP BY name",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    Btree {
                        bytes: row.get::<_, i64>(1)? as u64,
                        unused: row.get::<_, i64>(2)? as u64,
                        interior: row.get::<_, i64>(3)? as u64,
                        overflow: row.get::<_, i64>(4)? as u64,
                    },
                ))
            })
            .map_err(err)?;
        for row in rows {
            let (name, btree) = row.map_err(err)?;
            btrees.insert(name, btree);
        }
        drop(stmt);
        let in_btrees: u64 = btrees.values().map(|b| b.bytes).sum();
        let mut tables = Vec::with_capacity(self.names.len());
        for name in &self.names {
            // `name` passed validate_tables: double-quoted, it cannot break out of the quotes.
            let spill = spill_name(name);
            let (entries, key_bytes, value_bytes) = conn
                .query_row(
                    &format!(
                        "SELECT (SELECT count(*) FROM \"{name}\") + (SELECT count(*) FROM \"{spill}\"), \
                         (SELECT coalesce(sum(length(key)), 0) FROM \"{name}\") \
                         + (SELECT coalesce(sum(length(key)), 0) FROM \"{spill}\"), \
                         (SELECT coalesce(sum(length(value)), 0) FROM \"{name}\") \
                         + (SELECT coalesce(sum(length(value)), 0) FROM \"{spill}\")"
                    ),
                    [],
                    |row| {
                        Ok((
                            row.get::<_, i64>(0)? as u64,
                            row.get::<_, i64>(1)? as u64,
                            row.get::<_, i64>(2)? as u64,
                        ))
                    },
                )
                .map_err(err)?;
            let rows = btrees.get(name.as_str()).unwrap_or(&NONE);
            let spilled = btrees.get(spill.as_str()).unwrap_or(&NONE);
            // The head index and the spill table's key index.
            let head = head_index(name);
            let spill_index = format!("sqlite_autoindex_{spill}_");
            let (index_bytes, index_unused) = btrees
                .iter()
                .filter(|(n, _)| **n == head || n.starts_with(&spill_index))
                .fold((0, 0), |(b, u), (_, t)| (b + t.bytes, u + t.unused));
            tables.push(TableSpace {
                table: name.clone(),
                entries,
                key_bytes,
                value_bytes,
                stored_bytes: rows.bytes + spilled.bytes + index_bytes,
                unused_bytes: rows.unused + spilled.unused + index_unused,
                index_bytes: rows.interior + spilled.interior + index_bytes,
                overflow_bytes: rows.overflow + spilled.overflow,
            });
        }
        let in_tables: u64 = tables.iter().map(|t| t.stored_bytes).sum();
        let file = std::fs::metadata(self.path()).map(|m| m.len()).unwrap_or(0);
        let mut side = 0;
        for suffix in ["-wal", "-journal"] {
            let mut path = self.path().as_os_str().to_owned();
            path.push(suffix);
            side += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        }
        let free = free_pages * page;
        // The schema table's pages and anything dbstat does not name (the file's header page
        // is sqlite_schema's), then the WAL or journal beside the file.
        let other = (in_btrees - in_tables) + file.saturating_sub(in_btrees + free) + side;
        Ok(StoreSpace {
            page_bytes: page,
            tables,
            free_bytes: free,
            other_bytes: other,
        })
    }
}

/// A table `dbstat` does not list (no pages yet).
const NONE: Btree = Btree {
    bytes: 0,
    unused: 0,
    interior: 0,
    overflow: 0,
};
