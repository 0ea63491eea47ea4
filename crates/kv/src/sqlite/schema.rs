//! The tables in SQL: which declared names SQLite can hold apart, the `CREATE TABLE` run at open,
//! and the text of every per-table statement, built once so the per-operation path only looks a
//! prepared statement up in the connection's cache.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{KvError, KvResult};

/// Prepared statements each table uses (see [`TableSql`]).
pub(super) const STATEMENTS_PER_TABLE: usize = 8;

/// The SQL text of every statement on one table, built once at open so the per-operation path
/// only looks the prepared statement up in the connection's cache.
#[derive(Debug)]
pub(super) struct TableSql {
    pub(super) get: String,
    /// Existence only: answered from the key's b-tree cell, without reading a large value's
    /// overflow pages.
    pub(super) exists: String,
    pub(super) insert: String,
    pub(super) put: String,
    pub(super) delete: String,
    pub(super) count: String,
    pub(super) scan_from: String,
    pub(super) scan_between: String,
}

impl TableSql {
    /// `name` passed `validate_tables` (ASCII letters, digits, `_`, `-`), so double-quoting it
    /// makes a valid identifier that cannot break out of the quotes.
    pub(super) fn new(name: &str) -> Self {
        let t = format!("\"{name}\"");
        TableSql {
            get: format!("SELECT value FROM {t} WHERE key = ?1"),
            exists: format!("SELECT 1 FROM {t} WHERE key = ?1"),
            insert: format!("INSERT INTO {t} (key, value) VALUES (?1, ?2)"),
            put: format!(
                "INSERT INTO {t} (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ),
            delete: format!("DELETE FROM {t} WHERE key = ?1"),
            count: format!("SELECT count(*) FROM {t}"),
            scan_from: format!("SELECT key, value FROM {t} WHERE key >= ?1 ORDER BY key"),
            scan_between: format!(
                "SELECT key, value FROM {t} WHERE key >= ?1 AND key < ?2 ORDER BY key"
            ),
        }
    }
}

/// SQLite matches identifiers case-insensitively and reserves names starting with `sqlite_`;
/// reject declarations that would collide instead of silently sharing a table.
pub(super) fn check_sql_names(names: &[String]) -> KvResult<()> {
    for (i, name) in names.iter().enumerate() {
        if name
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("sqlite_"))
        {
            return Err(KvError::InvalidTables(format!(
                "table name `{name}` starts with `sqlite_`, which SQLite reserves; rename it"
            )));
        }
        if let Some(other) = names[..i].iter().find(|o| o.eq_ignore_ascii_case(name)) {
            return Err(KvError::InvalidTables(format!(
                "tables `{other}` and `{name}` differ only in letter case, which SQLite does not \
                 distinguish; rename one"
            )));
        }
    }
    Ok(())
}

/// Creates the declared tables that do not exist yet, in one transaction: rowid tables, so large
/// values stay out of the key index (see the module docs of `sqlite`).
pub(super) fn create_tables(conn: &mut Connection, names: &[String]) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for name in names {
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS \"{name}\" \
             (key BLOB PRIMARY KEY, value BLOB NOT NULL)"
        ))?;
    }
    tx.commit()
}
