//! A fresh store's first touch: what its first commit and first read would pay once, paid
//! before a measurement starts, with the store's contents left as they were.
//!
//! A store just opened has not yet written into its tables' files or pages (SQLite: the
//! tables' first pages, its WAL frames past the schema, the statements each connection
//! prepares on first use; LMDB: the first data pages; PostgreSQL: each relation file's first
//! block and the session's first plans; Redis: the connection's first script call). A user's
//! long-lived store pays that once in its life; a measurement that runs each scenario on a
//! fresh store (the headline, the benches) would pay it inside every timed scenario, and on a
//! small scenario it is most of the figure. So [`first_touch`] writes one entry into every
//! table and commits, reads it back, then deletes it and commits: every table is touched by a
//! committed write, a read and a delete, and holds afterwards exactly what it held before
//! (nothing, on a fresh store). Space reservation (`lmdb-async`'s blocks) is made by the
//! store's own open.

use crate::error::KvResult;
use crate::store::{ReadTx, Store, Table, WriteTx};

/// The key [`first_touch`] writes and deletes again in every table: no trie writes it (23
/// bytes: the trie's keys are raw 32-byte node hashes, in every table, and its 16-byte layout
/// marker `triebench:layout`).
pub const FIRST_TOUCH_KEY: &[u8] = b"\xfftriebench-first-touch";

/// Bytes of the value [`first_touch`] writes: about a small trie node's encoding.
const FIRST_TOUCH_VALUE_BYTES: usize = 128;

/// Writes [`FIRST_TOUCH_KEY`] into every table of `store` and commits, reads it back, deletes it
/// and commits (see the module docs): the store's contents end as they began.
pub fn first_touch<S: Store>(store: &S) -> KvResult<()> {
    let tables: Vec<Table> = store
        .table_names()
        .iter()
        .map(|name| store.table(name))
        .collect::<KvResult<_>>()?;
    let value = [0x5au8; FIRST_TOUCH_VALUE_BYTES];
    let mut w = store.writer()?;
    for &table in &tables {
        w.put(table, FIRST_TOUCH_KEY, &value)?;
    }
    w.commit()?;
    {
        let r = store.reader()?;
        for &table in &tables {
            r.get(table, FIRST_TOUCH_KEY)?;
        }
    }
    let mut w = store.writer()?;
    for &table in &tables {
        w.delete(table, FIRST_TOUCH_KEY)?;
    }
    w.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::btree::BTreeStore;
    use crate::range::KeyRange;

    /// Every table holds what it held before the first touch.
    #[test]
    fn the_first_touch_leaves_every_table_as_it_was() {
        let store = BTreeStore::open(&["a", "b"]).expect("store");
        let a = store.table("a").expect("a");
        let mut w = store.writer().expect("writer");
        w.put(a, b"kept", b"v").expect("put");
        w.commit().expect("commit");
        first_touch(&store).expect("first touch");
        let r = store.reader().expect("reader");
        assert_eq!(
            r.collect(a, &KeyRange::all()).expect("scan"),
            vec![(b"kept".to_vec(), b"v".to_vec())]
        );
        let b = store.table("b").expect("b");
        assert_eq!(r.count(b).expect("count"), 0);
    }
}
