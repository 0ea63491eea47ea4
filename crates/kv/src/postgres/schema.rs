//! Schema and tables of a store, the session settings, and the prepared statements.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use postgres::Statement;

use super::{pg_err, Conn};
use crate::error::{KvError, KvResult};

/// File in the directory under test naming the schema a `POSTGRES_URL` store uses.
const SCHEMA_FILE: &str = "postgres-schema";

/// Prepared statements, one set per table.
pub(crate) struct Statements {
    pub(crate) get: Vec<Statement>,
    /// `SELECT 1 ... WHERE k = $1`: whether a key is present, without fetching (and
    /// detoasting) its value.
    pub(crate) exists: Vec<Statement>,
    pub(crate) get_many: Vec<Statement>,
    pub(crate) count: Vec<Statement>,
    pub(crate) scan_from: Vec<Statement>,
    pub(crate) scan_between: Vec<Statement>,
    pub(crate) existing: Vec<Statement>,
    pub(crate) upsert: Vec<Statement>,
    pub(crate) delete: Vec<Statement>,
    /// Each table's schema-qualified, quoted name, for the statements prepared on first use.
    pub(crate) qualified: Vec<String>,
    /// A commit writing to more than one table or kind, as one statement (see
    /// [`commit_sql`]), by the commit's shape; prepared on first use.
    pub(crate) commits: HashMap<Vec<Clause>, Statement>,
    /// Lookups in several tables as one statement (see [`lookup_sql`]), by the tables asked;
    /// prepared on first use.
    pub(crate) lookups: HashMap<Vec<usize>, Statement>,
}

/// One clause of a commit's statement: a table's preconditions, deletes, or upserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Clause {
    /// Precondition: none of the keys `$n` is in the table.
    Absent(usize),
    /// Precondition: each key of `$n` holds the value at the same index of `$n+1`.
    Holds(usize),
    /// `DELETE FROM t WHERE k = ANY($n)`.
    Delete(usize),
    /// `INSERT INTO t SELECT * FROM unnest($n, $n+1) ON CONFLICT (k) DO UPDATE`.
    Upsert(usize),
}

/// A commit's writes as one statement: each clause a data-modifying `WITH` query, parameters in
/// clause order (a delete's keys; an upsert's keys, then values; a precondition's keys, then
/// its values if it has any). Only the clauses the commit needs are in it (an empty
/// `DELETE ... = ANY($1)` still runs, and a generic plan cached for it may scan its table), so
/// each shape of commit has a statement of its own. In autocommit one statement is one atomic
/// transaction and one round trip; its clauses see the same snapshot.
///
/// With preconditions, the statement first evaluates them all into one boolean (`ok`, computed
/// once), every write applies its rows only where it holds, and the statement returns it: a
/// failed precondition writes nothing, in the same request. They are read in the statement's
/// snapshot, before its own writes.
pub(crate) fn commit_sql(qualified: &[String], shape: &[Clause]) -> String {
    let mut conditions = Vec::new();
    let mut clauses = Vec::with_capacity(shape.len());
    let mut n = 0;
    let guarded = shape
        .iter()
        .any(|c| matches!(c, Clause::Absent(_) | Clause::Holds(_)));
    let only_if = if guarded {
        " AND (SELECT held FROM ok)"
    } else {
        ""
    };
    let where_ok = if guarded {
        " WHERE (SELECT held FROM ok)"
    } else {
        ""
    };
    for (c, clause) in shape.iter().enumerate() {
        match *clause {
            Clause::Absent(t) => {
                n += 1;
                conditions.push(format!(
                    "(SELECT count(*) FROM {} WHERE k = ANY(${n}::bytea[])) = 0",
                    qualified[t]
                ));
            }
            Clause::Holds(t) => {
                let (k, v) = (n + 1, n + 2);
                n += 2;
                conditions.push(format!(
                    "(SELECT count(*) FROM {} AS x JOIN unnest(${k}::bytea[], ${v}::bytea[]) \
                     AS e(k, v) ON x.k = e.k AND x.v = e.v WHERE x.k = ANY(${k}::bytea[])) \
                     = cardinality(${k}::bytea[])",
                    qualified[t]
                ));
            }
            Clause::Delete(t) => {
                n += 1;
                clauses.push(format!(
                    "c{c} AS (DELETE FROM {} WHERE k = ANY(${n}::bytea[]){only_if})",
                    qualified[t]
                ));
            }
            Clause::Upsert(t) => {
                let (k, v) = (n + 1, n + 2);
                n += 2;
                clauses.push(format!(
                    "c{c} AS (INSERT INTO {} (k, v) SELECT * FROM unnest(${k}::bytea[], \
                     ${v}::bytea[]){where_ok} ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v)",
                    qualified[t]
                ));
            }
        }
    }
    if guarded {
        clauses.insert(
            0,
            format!("ok AS (SELECT {} AS held)", conditions.join(" AND ")),
        );
        format!("WITH {} SELECT held FROM ok", clauses.join(", "))
    } else {
        format!("WITH {} SELECT 1", clauses.join(", "))
    }
}

/// Lookups in several tables as one statement: one `SELECT` per table asked, `UNION ALL`, each
/// row tagged with the ask's position; parameter `$n` is the n-th ask's keys.
pub(crate) fn lookup_sql(qualified: &[String], tables: &[usize]) -> String {
    tables
        .iter()
        .enumerate()
        .map(|(a, &t)| {
            format!(
                "SELECT {a}::int4 AS a, k, v FROM {} WHERE k = ANY(${}::bytea[])",
                qualified[t],
                a + 1
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

/// The schema named in `<dir>/postgres-schema`, if the directory holds a `POSTGRES_URL` store.
pub(crate) fn existing_schema(dir: &Path) -> Option<String> {
    let name = std::fs::read_to_string(dir.join(SCHEMA_FILE)).ok()?;
    let name = name.trim();
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then(|| name.to_string())
}

/// Drops `schema` and its tables.
pub(crate) fn drop_schema(config: postgres::Config, schema: &str) -> KvResult<()> {
    let mut client = config
        .connect(postgres::NoTls)
        .map_err(|e| pg_err("cannot connect to drop a store's schema", e))?;
    client
        .batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", quote(schema)))
        .map_err(|e| pg_err("cannot drop a store's schema", e))
}

/// The schema of a store on a shared server: read from `<dir>/postgres-schema`, or a new unique
/// name written there, so reopening the directory finds its data and no two stores collide.
pub(crate) fn schema_for_dir(dir: &Path) -> KvResult<String> {
    std::fs::create_dir_all(dir).map_err(|e| KvError::io("create directory", dir, e))?;
    let file = dir.join(SCHEMA_FILE);
    if let Some(name) = existing_schema(dir) {
        return Ok(name);
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let name = format!("tb_{}_{:x}", std::process::id(), nanos);
    std::fs::write(&file, &name).map_err(|e| KvError::io("write schema name", &file, e))?;
    Ok(name)
}

pub(super) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// Connects, creates the schema and tables if missing, sets the session (`synchronous_commit`
/// to `synchronous_commit`: `on`, `off` or `remote_apply`) and prepares statements.
pub(crate) fn connect(
    mut config: postgres::Config,
    schema: &str,
    names: &[String],
    synchronous_commit: &str,
) -> KvResult<Conn> {
    config
        .connect_timeout(Duration::from_secs(10))
        .keepalives_idle(Duration::from_secs(10));
    let mut client = config.connect(postgres::NoTls).map_err(|e| {
        pg_err(
            "cannot connect (check POSTGRES_URL or the managed server)",
            e,
        )
    })?;
    let s = quote(schema);
    let mut setup = format!(
        "SET synchronous_commit = {synchronous_commit}; SET statement_timeout = '600s'; \
         SET client_min_messages = warning; CREATE SCHEMA IF NOT EXISTS {s};"
    );
    for name in names {
        setup.push_str(&format!(
            "CREATE TABLE IF NOT EXISTS {s}.{} (k bytea PRIMARY KEY, v bytea NOT NULL);",
            quote(name)
        ));
    }
    client
        .batch_execute(&setup)
        .map_err(|e| pg_err("cannot create schema and tables", e))?;
    let mut stmts = Statements {
        get: Vec::new(),
        exists: Vec::new(),
        get_many: Vec::new(),
        count: Vec::new(),
        scan_from: Vec::new(),
        scan_between: Vec::new(),
        existing: Vec::new(),
        upsert: Vec::new(),
        delete: Vec::new(),
        qualified: Vec::new(),
        commits: HashMap::new(),
        lookups: HashMap::new(),
    };
    for name in names {
        let t = format!("{s}.{}", quote(name));
        stmts.qualified.push(t.clone());
        let mut prep = |sql: String| client.prepare(&sql).map_err(|e| pg_err("prepare", e));
        stmts
            .get
            .push(prep(format!("SELECT v FROM {t} WHERE k = $1"))?);
        stmts
            .exists
            .push(prep(format!("SELECT 1 FROM {t} WHERE k = $1"))?);
        stmts
            .get_many
            .push(prep(format!("SELECT k, v FROM {t} WHERE k = ANY($1)"))?);
        stmts.count.push(prep(format!("SELECT count(*) FROM {t}"))?);
        stmts.scan_from.push(prep(format!(
            "SELECT k, v FROM {t} WHERE k >= $1 ORDER BY k"
        ))?);
        stmts.scan_between.push(prep(format!(
            "SELECT k, v FROM {t} WHERE k >= $1 AND k < $2 ORDER BY k"
        ))?);
        stmts
            .existing
            .push(prep(format!("SELECT k FROM {t} WHERE k = ANY($1)"))?);
        stmts.upsert.push(prep(format!(
            "INSERT INTO {t} (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) \
             ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v"
        ))?);
        stmts
            .delete
            .push(prep(format!("DELETE FROM {t} WHERE k = ANY($1)"))?);
    }
    Ok(Conn { client, stmts })
}
