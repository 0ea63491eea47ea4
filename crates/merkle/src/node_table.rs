//! The `main` table as the trie reads and writes it: each node under its **raw 32-byte hash**.
//!
//! Inside the trie a node's hash is the 64 lowercase hex digits that its parent's encoding
//! holds ([`HexHash`]): that is Transact's node format, hashed for the roots, and it does not
//! change. Only the storage key is raw, half the bytes of the hex text (and half of every key
//! index a backend keeps beside its rows). [`NodeTable`] is the one place that converts: its
//! methods take the hex hash the trie works with and hand the store the raw key, on the stack
//! (a fixed array, no allocation per node). A store written with hex keys is refused before any
//! of this runs (see [`store_layout`](crate::store_layout)).

use triebench_kv::{KvResult, ReadTx, Table, WriteTx};

use crate::hash::{hex_to_raw, HexHash, RawHash};

/// The handle of the `main` table, whose methods key nodes by their raw hash.
///
/// The raw [`Table`] stays reachable through [`table`](Self::table) for the requests that span
/// several tables ([`ReadTx::get_many_across`], [`WriteTx::put_many`]); their callers pass raw
/// keys themselves ([`key`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeTable(Table);

/// The storage key of the node whose hash is `hash`: its raw 32 bytes.
#[inline]
pub(crate) fn key(hash: &HexHash) -> RawHash {
    hex_to_raw(hash)
}

impl NodeTable {
    /// Wraps the handle of the store's `main` table.
    pub(crate) fn new(table: Table) -> Self {
        NodeTable(table)
    }

    /// The underlying table handle: its keys are raw hashes.
    pub(crate) fn table(self) -> Table {
        self.0
    }

    /// `f` of the stored node `hash`, `None` if it is not stored.
    pub(crate) fn get_with<R: ReadTx, T>(
        self,
        rx: &R,
        hash: &HexHash,
        f: impl FnOnce(&[u8]) -> T,
    ) -> KvResult<Option<T>> {
        rx.get_with(self.0, &key(hash), f)
    }

    /// Whether the node `hash` is stored.
    pub(crate) fn contains<R: ReadTx>(self, rx: &R, hash: &HexHash) -> KvResult<bool> {
        rx.contains(self.0, &key(hash))
    }

    /// The stored nodes among `hashes`, in one request where the store batches reads: `f`
    /// gets the index in `hashes` and the encoding of each one found (absent ones skipped).
    pub(crate) fn get_many_with<R: ReadTx>(
        self,
        rx: &R,
        hashes: &[HexHash],
        f: impl FnMut(usize, &[u8]),
    ) -> KvResult<()> {
        let raws: Vec<RawHash> = hashes.iter().map(key).collect();
        let keys: Vec<&[u8]> = raws.iter().map(|k| &k[..]).collect();
        rx.get_many_with(self.0, &keys, f)
    }

    /// Stores `encoding` as the node `hash` (overwriting).
    pub(crate) fn put<W: WriteTx>(
        self,
        w: &mut W,
        hash: &HexHash,
        encoding: &[u8],
    ) -> KvResult<()> {
        w.put(self.0, &key(hash), encoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_kv::btree::BTreeStore;
    use triebench_kv::Store;

    /// What the store holds under a node is its raw hash; every method finds it by the hex.
    #[test]
    fn nodes_are_stored_under_raw_hashes() {
        let store = BTreeStore::open(&["main"]).expect("store");
        let nodes = NodeTable::new(store.table("main").expect("main"));
        let hex: HexHash = *b"708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6";
        let mut w = store.writer().expect("writer");
        nodes.put(&mut w, &hex, b"node").expect("put");
        w.commit().expect("commit");
        let r = store.reader().expect("reader");
        let raw = hex::decode(hex).expect("hex");
        assert_eq!(
            r.get(nodes.table(), &raw).expect("get"),
            Some(b"node".to_vec())
        );
        assert_eq!(r.get(nodes.table(), &hex).expect("get"), None);
        assert!(nodes.contains(&r, &hex).expect("contains"));
        assert_eq!(
            nodes.get_with(&r, &hex, <[u8]>::len).expect("get_with"),
            Some(4)
        );
        let mut found = Vec::new();
        let other = [b'0'; 64];
        nodes
            .get_many_with(&r, &[other, hex], |i, v| found.push((i, v.to_vec())))
            .expect("get_many");
        assert_eq!(found, vec![(1, b"node".to_vec())]);
    }
}
