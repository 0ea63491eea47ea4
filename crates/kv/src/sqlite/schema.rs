//! The tables in SQL: which declared names SQLite can hold apart, the `CREATE TABLE` run at open,
//! and the text of every per-table statement, built once so the per-operation path only looks a
//! prepared statement up in the connection's cache.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{KvError, KvResult};

/// Prepared statements each table uses (see [`TableSql`]).
pub(super) const STATEMENTS_PER_TABLE: usize = 15;

/// The layout this build reads and writes, recorded as the database's `user_version`: 1, each
/// declared table a rowid table `(key, value)` with a unique index of its keys' first 8 bytes,
/// beside a spill table (the module docs of `sqlite`). 0, SQLite's default, is every earlier
/// triebench's: tables with a `key BLOB PRIMARY KEY`, whose index holds every key whole.
pub(super) const LAYOUT_VERSION: i64 = 1;

/// The bytes of a key that its table's head index holds.
pub(super) const HEAD_BYTES: usize = 8;

/// A row's head in SQL: the head index's expression, which every statement that finds a row
/// by its head writes exactly so, for the planner to match it to the index.
fn head_sql() -> String {
    format!("substr(key, 1, {HEAD_BYTES})")
}

/// The SQL text of every statement on one table, built once at open so the per-operation path
/// only looks the prepared statement up in the connection's cache.
///
/// A declared table is two SQLite tables. The rows `(key, value)`, appended as they are
/// written, with a unique index of each key's head, its first [`HEAD_BYTES`] bytes: one row per
/// head. And the spill table, `key BLOB PRIMARY KEY`, for keys shorter than that and keys whose
/// head another key's row already has. Statements named `spill_*` are the spill table's.
#[derive(Debug)]
pub(super) struct TableSql {
    /// The row with key `?1`'s head: its key, and its value only if the key is `?1` (NULL
    /// otherwise). A row holding another key is told apart without reading its value: when the
    /// two keys share a head, as a change-log entry and its additions do, the other's value can
    /// be tens of MB of overflow pages (the first 1-key commit after a growth fill read 40 MB).
    pub(super) get: String,
    /// The key of the row with head `?1`: read from the row's first column, without reading a
    /// large value's overflow pages.
    pub(super) key_of: String,
    /// Adds row `(?1, ?2)` unless its head has a row (then changes nothing).
    pub(super) insert: String,
    /// Replaces the value of key `?1`'s row with `?2`.
    pub(super) update: String,
    /// Removes key `?1`'s row.
    pub(super) delete: String,
    /// Rows from head `?1` on, in head order (which is key order).
    pub(super) scan_from: String,
    /// Entries in the rows and the spill table together.
    pub(super) count: String,
    /// A spilled key's value.
    pub(super) spill_get: String,
    /// Whether a key is spilled.
    pub(super) spill_exists: String,
    /// Spills a key; an existing one is a constraint failure.
    pub(super) spill_insert: String,
    /// Spills a key, replacing its value if present.
    pub(super) spill_put: String,
    /// Removes a spilled key.
    pub(super) spill_delete: String,
    /// The first spilled key at or after a key (the one a freed head goes to).
    pub(super) spill_first_from: String,
    /// Spilled keys from a key on, in key order.
    pub(super) spill_scan_from: String,
    /// Spilled keys in a half-open range, in key order.
    pub(super) spill_scan_between: String,
}

impl TableSql {
    /// `name` passed `validate_tables` (ASCII letters, digits, `_`, `-`), so double-quoting it
    /// makes a valid identifier that cannot break out of the quotes.
    pub(super) fn new(name: &str) -> Self {
        let t = format!("\"{name}\"");
        let s = spill_table(name);
        let head = head_sql();
        // Key `?1`'s row: its head through the index, then the whole key in the row.
        let row_of_key = format!("{head} = substr(?1, 1, {HEAD_BYTES}) AND key = ?1");
        TableSql {
            get: format!(
                "SELECT key, CASE WHEN key = ?1 THEN value END FROM {t} \
                 WHERE {head} = substr(?1, 1, {HEAD_BYTES})"
            ),
            key_of: format!("SELECT key FROM {t} WHERE {head} = ?1"),
            // OR IGNORE: the head index's uniqueness is the only constraint a row can break
            // (the columns are never bound NULL).
            insert: format!("INSERT OR IGNORE INTO {t} (key, value) VALUES (?1, ?2)"),
            update: format!("UPDATE {t} SET value = ?2 WHERE {row_of_key}"),
            delete: format!("DELETE FROM {t} WHERE {row_of_key}"),
            scan_from: format!("SELECT key, value FROM {t} WHERE {head} >= ?1 ORDER BY {head}"),
            count: format!("SELECT (SELECT count(*) FROM {t}) + (SELECT count(*) FROM {s})"),
            spill_get: format!("SELECT value FROM {s} WHERE key = ?1"),
            spill_exists: format!("SELECT 1 FROM {s} WHERE key = ?1"),
            spill_insert: format!("INSERT INTO {s} (key, value) VALUES (?1, ?2)"),
            spill_put: format!(
                "INSERT INTO {s} (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ),
            spill_delete: format!("DELETE FROM {s} WHERE key = ?1"),
            spill_first_from: format!(
                "SELECT key, value FROM {s} WHERE key >= ?1 ORDER BY key LIMIT 1"
            ),
            spill_scan_from: format!("SELECT key, value FROM {s} WHERE key >= ?1 ORDER BY key"),
            spill_scan_between: format!(
                "SELECT key, value FROM {s} WHERE key >= ?1 AND key < ?2 ORDER BY key"
            ),
        }
    }
}

/// The head of `key`, its first [`HEAD_BYTES`] bytes; `None` for a shorter key, which lives in
/// the spill table.
pub(super) fn head(key: &[u8]) -> Option<&[u8]> {
    key.get(..HEAD_BYTES)
}

/// The head index of declared table `name`, unquoted: `name:head`, a name no declared table
/// can have (`:` is not allowed in one).
pub(super) fn head_index(name: &str) -> String {
    format!("{name}:head")
}

/// The spill table of declared table `name`, unquoted: `name:spill`.
pub(super) fn spill_name(name: &str) -> String {
    format!("{name}:spill")
}

/// The spill table of declared table `name`, quoted for SQL.
fn spill_table(name: &str) -> String {
    format!("\"{}\"", spill_name(name))
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

/// Creates the declared tables that do not exist yet, with their head indexes and spill tables,
/// in one transaction, after checking the database's layout: a fresh database is given
/// [`LAYOUT_VERSION`]; one recording it gains any table it lacks; anything else (an earlier
/// triebench's tables, another program's database, a newer layout) is refused, as
/// [`LayoutRefused`], with nothing written.
pub(super) fn create_tables(
    conn: &mut Connection,
    names: &[String],
) -> rusqlite::Result<Result<(), LayoutRefused>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version != LAYOUT_VERSION {
        let tables: i64 = tx.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |row| row.get(0),
        )?;
        if version != 0 || tables > 0 {
            // Dropping the transaction rolls it back: nothing was written.
            return Ok(Err(LayoutRefused { version, tables }));
        }
        tx.execute_batch(&format!("PRAGMA user_version = {LAYOUT_VERSION}"))?;
    }
    for name in names {
        // The key before the value: reading it (a lookup's check) never reaches a large
        // value's overflow pages. The head index is the rows' one constraint.
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS \"{name}\" (key BLOB NOT NULL, value BLOB NOT NULL); \
             CREATE UNIQUE INDEX IF NOT EXISTS \"{index}\" ON \"{name}\" ({head}); \
             CREATE TABLE IF NOT EXISTS {spill} (key BLOB PRIMARY KEY, value BLOB NOT NULL)",
            index = head_index(name),
            head = head_sql(),
            spill = spill_table(name)
        ))?;
    }
    tx.commit().map(Ok)
}

/// A database whose layout this build does not read (see [`create_tables`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LayoutRefused {
    /// Its `user_version`.
    pub(super) version: i64,
    /// How many tables it holds.
    pub(super) tables: i64,
}

impl std::fmt::Display for LayoutRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.version {
            0 => write!(
                f,
                "it holds {} table{} but no layout version (user_version 0), as stores \
                 written by triebench before 2026-11-29 (one `key BLOB PRIMARY KEY` table per \
                 declared table) and other programs' databases do; this build reads layout \
                 {LAYOUT_VERSION} (an index of each key's first 8 bytes)",
                self.tables,
                if self.tables == 1 { "" } else { "s" }
            ),
            v if v > LAYOUT_VERSION => write!(
                f,
                "it records layout {v} (user_version), newer than this build reads \
                 ({LAYOUT_VERSION}); use a newer triebench"
            ),
            v => write!(
                f,
                "it records layout {v} (user_version), which no triebench writes; this build \
                 reads layout {LAYOUT_VERSION}"
            ),
        }
    }
}
