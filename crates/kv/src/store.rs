//! The storage trait: a store of named tables, many readers, one writer at a time.

use std::ops::ControlFlow;

use crate::content_cache::ContentCache;
use crate::error::{KvError, KvResult};
use crate::range::KeyRange;

/// A handle to one of the tables a store declared when it was opened.
///
/// Handles are cheap indices obtained from [`Store::table`]; resolving the name once keeps
/// string comparisons off the per-operation path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Table(pub(crate) u16);

impl Table {
    /// The table's position in the list of names the store was opened with.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A key-value store with named tables, declared at open.
///
/// Readers may be opened concurrently from several threads (`Store: Sync`). Only one writer
/// exists at a time: [`Store::writer`] blocks until the previous writer commits or is dropped.
pub trait Store: Send + Sync {
    /// A read transaction borrowing the store.
    type Reader<'s>: ReadTx
    where
        Self: 's;
    /// The write transaction borrowing the store.
    type Writer<'s>: WriteTx
    where
        Self: 's;

    /// Opens a read transaction. Where the backend offers snapshots (see each backend's docs)
    /// the reader sees the state as of this call, whatever is committed later.
    fn reader(&self) -> KvResult<Self::Reader<'_>>;

    /// Opens the write transaction, waiting for any other writer to finish first.
    fn writer(&self) -> KvResult<Self::Writer<'_>>;

    /// The table names this store was opened with, in declaration order.
    fn table_names(&self) -> &[String];

    /// The process id of a server this store started and owns (the managed `redis-server`),
    /// so a load run can count its memory and CPU; `None` for in-process backends and for
    /// servers reached by URL.
    fn server_pid(&self) -> Option<u32> {
        None
    }

    /// A cache of values named by their own hash (the trie's nodes), kept by the store for the
    /// trie to consult before a read that would be a round trip to a server; `None` (the
    /// default) where reads are cheap or the profile measures every read (`*-uncached`).
    fn content_cache(&self) -> Option<&ContentCache> {
        None
    }

    /// Where the store's bytes go, table by table, as the backend accounts them (pages,
    /// indexes, values out of line, free pages): what a byte on disk per leaf is spent on.
    /// `None` (the default) for a backend whose bytes are not its own files' pages (memory,
    /// Redis). It reads every entry once: a measurement's step, not a hot path.
    fn space(&self) -> KvResult<Option<triebench_record::space::StoreSpace>> {
        Ok(None)
    }

    /// Resolves a declared table name to a handle.
    fn table(&self, name: &str) -> KvResult<Table> {
        let names = self.table_names();
        match names.iter().position(|n| n == name) {
            // Declaration checks (`validate_tables`) cap the count well below u16::MAX.
            Some(i) => Ok(Table(i as u16)),
            None => Err(KvError::UnknownTable {
                name: name.to_string(),
                known: names.join(", "),
            }),
        }
    }
}

/// Reads, available on read transactions and (seeing its own pending changes) on the writer.
pub trait ReadTx {
    /// Looks `key` up in `table` and hands the value to `f` without copying it where the
    /// backend allows (LMDB and BTree pass a borrowed slice).
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R;

    /// Number of entries in `table`.
    fn count(&self, table: Table) -> KvResult<u64>;

    /// Visits the entries of `table` whose keys fall in `range`, in ascending byte order of the
    /// key, until `visit` returns [`ControlFlow::Break`].
    fn scan<F>(&self, table: Table, range: &KeyRange, visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>;

    /// Looks up every key of `keys` in `table` and hands each value found to `f` with the key's
    /// index in `keys` (absent keys are skipped; the order of the calls is unspecified). A
    /// backend whose reads are round trips to a server answers them all in one request
    /// (PostgreSQL `= ANY($1)`, Redis `HMGET`); by default it is key by key.
    fn get_many_with<F>(&self, table: Table, keys: &[&[u8]], mut f: F) -> KvResult<()>
    where
        F: FnMut(usize, &[u8]),
    {
        for (i, key) in keys.iter().enumerate() {
            self.get_with(table, key, |value| f(i, value))?;
        }
        Ok(())
    }

    /// Batched lookups in several tables at once: for each ask `(table, keys)`, every value
    /// found is handed to `f` with the ask's index and the key's index in its `keys` (absent
    /// keys skipped, order unspecified). PostgreSQL answers them all in one statement, so a
    /// caller needing reads from two tables pays one round trip; by default it is one
    /// [`get_many_with`](Self::get_many_with) per ask.
    fn get_many_across<F>(&self, asks: &[(Table, &[&[u8]])], mut f: F) -> KvResult<()>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        for (a, (table, keys)) in asks.iter().enumerate() {
            self.get_many_with(*table, keys, |i, v| f(a, i, v))?;
        }
        Ok(())
    }

    /// Whether each read costs a round trip to a server, so that a caller gains by gathering
    /// its reads into [`get_many_with`](Self::get_many_with). `false` by default (in-process
    /// backends, where a read costs less than gathering it).
    fn reads_are_round_trips(&self) -> bool {
        false
    }

    /// Looks `key` up and returns an owned copy of its value.
    fn get(&self, table: Table, key: &[u8]) -> KvResult<Option<Vec<u8>>> {
        self.get_with(table, key, <[u8]>::to_vec)
    }

    /// Whether `key` is present in `table`.
    fn contains(&self, table: Table, key: &[u8]) -> KvResult<bool> {
        Ok(self.get_with(table, key, |_| ())?.is_some())
    }

    /// Collects the entries of `range` in key order.
    fn collect(&self, table: Table, range: &KeyRange) -> KvResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        self.scan(table, range, |k, v| {
            out.push((k.to_vec(), v.to_vec()));
            ControlFlow::Continue(())
        })?;
        Ok(out)
    }
}

/// The single write transaction. Its reads see its own pending changes.
///
/// Nothing is visible to readers until [`WriteTx::commit`]; dropping the writer without
/// committing rolls every change back.
pub trait WriteTx: ReadTx {
    /// Puts `value` under `key` only if the key is absent. An existing key is a
    /// [`KvError::DuplicateEntry`](crate::KvError::DuplicateEntry). Backends that cannot check
    /// without a server round trip (Redis) report a clash with committed data from `commit`
    /// instead; either way, nothing of the transaction is applied.
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()>;

    /// Puts `value` under `key`, replacing any previous value.
    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()>;

    /// Removes `key`; removing an absent key is not an error.
    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()>;

    /// Puts every `(key, value)` of `entries`, exactly as calling [`put`](Self::put) on each in
    /// turn would (a later entry for the same key wins). A backend may take a batch faster
    /// than key by key, above all one sorted by key; by default it is key by key.
    fn put_many<'a, I>(&mut self, table: Table, entries: I) -> KvResult<()>
    where
        I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
    {
        for (key, value) in entries {
            self.put(table, key, value)?;
        }
        Ok(())
    }

    /// Requires `key` to be absent from `table` for this transaction to commit; otherwise it
    /// fails with [`KvError::PreconditionFailed`](crate::KvError::PreconditionFailed) and applies
    /// nothing. A caller that would read a key only to decide what to write states what it
    /// expects instead, and a server backend checks it inside the commit's one request.
    ///
    /// The key is checked as this transaction sees it, before any change it makes to the key
    /// (call this first). A backend whose writer excludes every other writer until it commits
    /// (BTree, LMDB, SQLite: the default) checks at the call; PostgreSQL and Redis check
    /// atomically with the commit, and a failure surfaces there.
    fn require_absent(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let present = self.get_with(table, key, |_| ())?.is_some();
        check_precondition(table, key, present.then_some(&[][..]), None)
    }

    /// Requires `key` in `table` to hold exactly `value` for this transaction to commit, with
    /// the rules of [`require_absent`](Self::require_absent).
    fn require_value(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        self.get_with(table, key, |held| {
            check_precondition(table, key, Some(held), Some(value))
        })?
        .unwrap_or_else(|| check_precondition(table, key, None, Some(value)))
    }

    /// Whether stating what the transaction expects ([`require_absent`](Self::require_absent),
    /// [`require_value`](Self::require_value)) costs this writer less than reading it first: a
    /// caller that reads keys only to decide what to write should then state them instead.
    /// `true` where the commit checks them in its own request and reads are round trips
    /// (PostgreSQL; Redis without its node cache on a far server); `false` by default
    /// (in-process backends, where a read is cheaper).
    fn prefers_preconditions(&self) -> bool {
        false
    }

    /// Makes every change of this transaction visible at once, with the durability of the
    /// store's profile (see [`Profile::durability`](crate::Profile::durability)).
    fn commit(self) -> KvResult<()>;
}

/// Checks a list of table names given at open: non-empty, unique, not too many.
pub(crate) fn validate_tables(tables: &[&str]) -> KvResult<Vec<String>> {
    const MAX_TABLES: usize = 64;
    if tables.is_empty() || tables.len() > MAX_TABLES {
        return Err(KvError::InvalidTables(format!(
            "declare between 1 and {MAX_TABLES} tables, got {}",
            tables.len()
        )));
    }
    let mut names: Vec<String> = Vec::with_capacity(tables.len());
    for name in tables {
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(KvError::InvalidTables(format!(
                "table name `{name}` must be non-empty ASCII letters, digits, `_` or `-`"
            )));
        }
        if names.iter().any(|n| n == name) {
            return Err(KvError::InvalidTables(format!(
                "table `{name}` is declared twice"
            )));
        }
        names.push((*name).to_string());
    }
    Ok(names)
}

/// Resolves a handle against a store's table list, for backends that index by position.
pub(crate) fn check_table(table: Table, count: usize) -> KvResult<usize> {
    let index = table.index();
    if index < count {
        Ok(index)
    } else {
        Err(KvError::BadTableHandle { index, count })
    }
}

/// Whether `key` of `table`, holding `held` (`None`: absent), meets `expected` (`None`: must be
/// absent; `Some(bytes)`: must hold exactly these bytes).
pub(crate) fn check_precondition(
    table: Table,
    key: &[u8],
    held: Option<&[u8]>,
    expected: Option<&[u8]>,
) -> KvResult<()> {
    match (held, expected) {
        (None, None) => Ok(()),
        (Some(_), None) => Err(KvError::precondition(table, key, "is present")),
        (Some(held), Some(want)) if held == want => Ok(()),
        (Some(_), Some(_)) => Err(KvError::precondition(table, key, "holds other bytes")),
        (None, Some(_)) => Err(KvError::precondition(table, key, "is absent")),
    }
}

/// A server backend's precondition on `key` (`expected`: `None` absent, else these bytes):
/// checked now against the writer's own pending change of the key (`pending`: `None` when it
/// has none), else kept in `required` for the commit's request to check.
#[cfg(any(feature = "redis-db", feature = "postgres-db"))]
pub(crate) fn require_on_commit(
    table: Table,
    key: &[u8],
    expected: Option<&[u8]>,
    pending: Option<Option<&[u8]>>,
    required: &mut std::collections::BTreeMap<Vec<u8>, Option<Vec<u8>>>,
) -> KvResult<()> {
    match pending {
        Some(held) => check_precondition(table, key, held, expected),
        None => {
            required.insert(key.to_vec(), expected.map(<[u8]>::to_vec));
            Ok(())
        }
    }
}

#[cfg(test)]
mod precondition_tests {
    use super::*;

    #[test]
    fn each_unmet_precondition_is_refused_and_says_what_it_found() {
        let t = Table(1);
        assert!(check_precondition(t, b"k", None, None).is_ok());
        assert!(check_precondition(t, b"k", Some(b"v"), Some(b"v")).is_ok());
        for (held, expected, found) in [
            (Some(&b"v"[..]), None, "is present"),
            (Some(b"v"), Some(&b"w"[..]), "holds other bytes"),
            (None, Some(b"w"), "is absent"),
        ] {
            match check_precondition(t, b"k", held, expected) {
                Err(KvError::PreconditionFailed { detail }) => {
                    assert!(detail.contains(found) && detail.contains("6b"), "{detail}");
                }
                other => panic!("expected a failed precondition, got {other:?}"),
            }
        }
    }
}
