//! Recorded write transactions made again, straight on a store: each transaction's calls in
//! one write transaction, nothing read, nothing hashed. The update floor replays `update`'s
//! commits ([`FloorCommits`](super::FloorCommits)); the growth curve's fill floor
//! (`triebench grow --fill-floor`) replays each fill commit as the trie made it and shuffled.

use triebench_kv::{KvError, Store, Table, WriteTx};

use super::recording::Write;
use crate::rng::XorShift64Star;

/// The store's handle of each recorded table, by the recorded table's index.
#[derive(Debug, Clone)]
pub struct Replayer {
    tables: Vec<Table>,
}

impl Replayer {
    /// Replays into `store`'s tables named `table_names` (the recording store's
    /// [`Store::table_names`], in its order).
    pub fn new<S: Store>(store: &S, table_names: &[String]) -> Result<Self, KvError> {
        let tables = table_names
            .iter()
            .map(|name| store.table(name))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Replayer { tables })
    }

    /// Makes each transaction's recorded calls (`put`, `put_many`, `delete`), in order, in one
    /// write transaction per recorded one.
    pub fn replay<S: Store>(&self, store: &S, transactions: &[Vec<Write>]) -> Result<(), KvError> {
        for writes in transactions {
            let mut w = store.writer()?;
            for write in writes {
                self.apply(&mut w, write)?;
            }
            w.commit()?;
        }
        Ok(())
    }

    /// Makes one recorded write call on `w`.
    pub fn apply<W: WriteTx>(&self, w: &mut W, write: &Write) -> Result<(), KvError> {
        let table = |index: usize| {
            self.tables.get(index).copied().ok_or_else(|| {
                KvError::backend("floor", format!("recorded table {index} not resolved"))
            })
        };
        match write {
            Write::Put {
                table: t,
                key,
                value,
            } => w.put(table(*t)?, key, value),
            Write::PutMany { table: t, entries } => w.put_many(table(*t)?, entries.iter()),
            Write::Delete { table: t, key } => w.delete(table(*t)?, key),
        }
    }
}

/// Shuffles every `put_many`'s entries (Fisher-Yates, from `rng`): the same writes in the order
/// of no index, against the trie's, which puts a commit's new nodes in key order.
pub fn shuffle_entries(transactions: &mut [Vec<Write>], rng: &mut XorShift64Star) {
    for write in transactions.iter_mut().flatten() {
        if let Write::PutMany { entries, .. } = write {
            for i in (1..entries.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                entries.swap(i, j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_kv::btree::BTreeStore;
    use triebench_kv::{KeyRange, ReadTx};

    fn contents(store: &BTreeStore, name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
        let t = store.table(name).expect("table");
        store
            .reader()
            .expect("reader")
            .collect(t, &KeyRange::all())
            .expect("scan")
    }

    #[test]
    fn a_replay_shuffled_or_not_leaves_the_recorded_contents() {
        let names = ["a".to_string(), "b".to_string()];
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0u8..50).map(|i| (vec![i], vec![i, i])).collect();
        let recorded = vec![
            vec![
                Write::PutMany {
                    table: 1,
                    entries: entries.iter().map(|(k, v)| (k, v)).collect(),
                },
                Write::Put {
                    table: 0,
                    key: b"k".to_vec(),
                    value: b"v".to_vec(),
                },
            ],
            vec![Write::Delete {
                table: 1,
                key: vec![7],
            }],
        ];
        let mut shuffled = recorded.clone();
        shuffle_entries(&mut shuffled, &mut XorShift64Star::new(3));
        assert_ne!(shuffled, recorded, "the entries moved");
        for txs in [&recorded, &shuffled] {
            let store = BTreeStore::open(&["a", "b"]).expect("store");
            let replayer = Replayer::new(&store, &names).expect("tables");
            replayer.replay(&store, txs).expect("replay");
            let mut want = entries.clone();
            want.remove(7);
            assert_eq!(contents(&store, "b"), want);
            assert_eq!(contents(&store, "a"), vec![(b"k".to_vec(), b"v".to_vec())]);
        }
    }
}
