//! The storage floor of a trie commit: the writes one of `update`'s single-key commits makes,
//! made directly on the store (no trie, no reads, no hashing), so a report can set each
//! backend's scenario times against what its storage alone costs for the same bytes.
//!
//! On the store `update` grows (1000 keys, ~33,000 nodes), one of its commits writes on average
//! 33 new nodes holding ~15.7 KB under fresh hash-like keys (the root, ~13 KB, and 32 small
//! nodes; figures from the `hotpath` example) and two change-log entries (the new root's and
//! its parent's, rewritten). [`FloorCommits::preload`] fills a store to the size `update`'s
//! table averages over its run, and [`FloorCommits::prepare`] draws a commit's keys, both for
//! the caller to leave untimed; [`FloorCommits::commit`] writes one such commit in one write
//! transaction.

use triebench_kv::{KvError, Store, Table, WriteTx};

use crate::rng::XorShift64Star;

/// Node entries [`FloorCommits::preload`] writes: half what `update` leaves, the size its table averages
/// over the run.
pub const PRELOADED_NODES: usize = 16_000;

/// Nodes per commit, as an average `update` commit writes.
pub const NODES_PER_COMMIT: usize = 33;

/// Bytes of the commit's root node.
pub const ROOT_BYTES: usize = 13_000;

/// Bytes of each other node (32 of them make the ~2.7 KB beside the root).
pub const NODE_BYTES: usize = 84;

/// Bytes of the new root's change-log entry and of its parent's rewritten one (the parent's
/// entry was written at the first size by the commit before).
pub const CHANGE_LOG_BYTES: [usize; 2] = [1_100, 2_200];

// Commits a floor measurement times, one sample each: written in the record's vocabulary, as
// the report names it as the number a floor is the mean of (rustdoc shows the record's doc).
pub use triebench_record::vocabulary::FLOOR_COMMITS;

/// Entries preloaded per write transaction, so no backend holds one huge transaction.
const PRELOAD_BATCH: usize = 1_000;

/// The keys and bytes of floor commits: fresh keys drawn from a seeded generator, so every
/// commit writes where the trie would (at random places of the key space).
#[derive(Debug)]
pub struct FloorCommits {
    keys: XorShift64Star,
    bytes: Vec<u8>,
    main: Table,
    change_log: Table,
    /// The next commit's node keys, drawn by [`FloorCommits::prepare`].
    nodes: [[u8; 64]; NODES_PER_COMMIT],
    /// The next commit's change-log keys: its new root's (fresh), then its parent's (the
    /// previous commit's new root, already stored).
    roots: [[u8; 32]; 2],
}

/// `len` bytes that compress as badly as the trie's nodes (which are mostly 64-digit hex
/// hashes): random lowercase hex digits from a fixed seed. A store that compresses values
/// (PostgreSQL's TOAST) would otherwise shrink a constant filler to almost nothing and
/// charge the floor far less than the same commit of real nodes.
fn node_like_bytes(len: usize) -> Vec<u8> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut rng = XorShift64Star::new(0x6e6f_6465_6279_7465);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let mut word = rng.next_u64();
        for _ in 0..16 {
            if out.len() == len {
                break;
            }
            out.push(DIGITS[(word & 0xf) as usize]);
            word >>= 4;
        }
    }
    out
}

impl FloorCommits {
    /// Floor commits into the trie's `main` and `change_log` tables of `store` (opened with
    /// [`triebench_merkle::TABLES`]).
    pub fn new<S: Store>(store: &S) -> Result<Self, KvError> {
        Ok(FloorCommits {
            keys: XorShift64Star::new(0x5eed_f100),
            bytes: node_like_bytes(ROOT_BYTES),
            main: store.table("main")?,
            change_log: store.table("change_log")?,
            nodes: [[0; 64]; NODES_PER_COMMIT],
            roots: [[0; 32]; 2],
        })
    }

    /// A fresh node key: 64 random lowercase hex digits, as the trie names a node by its hash.
    fn node_key(&mut self) -> [u8; 64] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut key = [0u8; 64];
        for chunk in key.chunks_mut(16) {
            let mut word = self.keys.next_u64();
            for digit in chunk {
                *digit = DIGITS[(word & 0xf) as usize];
                word >>= 4;
            }
        }
        key
    }

    /// A fresh change-log key: 32 raw bytes, as the trie keys a root's entry.
    fn root_key(&mut self) -> [u8; 32] {
        let mut key = [0u8; 32];
        for chunk in key.chunks_mut(8) {
            chunk.copy_from_slice(&self.keys.next_u64().to_le_bytes());
        }
        key
    }

    /// Fills the store with [`PRELOADED_NODES`] small nodes, so commits land in a table of the
    /// size `update` reaches, and the first commit's parent entry. Not part of the floor: the
    /// caller leaves it untimed.
    pub fn preload<S: Store>(&mut self, store: &S) -> Result<(), KvError> {
        self.roots[0] = self.root_key();
        let mut w = store.writer()?;
        w.put(
            self.change_log,
            &self.roots[0],
            &self.bytes[..CHANGE_LOG_BYTES[0]],
        )?;
        w.commit()?;
        let mut left = PRELOADED_NODES;
        while left > 0 {
            let n = left.min(PRELOAD_BATCH);
            let mut w = store.writer()?;
            for _ in 0..n {
                let key = self.node_key();
                w.put(self.main, &key, &self.bytes[..NODE_BYTES])?;
            }
            w.commit()?;
            left -= n;
        }
        Ok(())
    }

    /// Draws the next commit's keys, so that [`FloorCommits::commit`] only writes: the caller
    /// leaves this untimed. Call [`FloorCommits::preload`] first: the first commit's parent
    /// entry is the one it writes.
    pub fn prepare(&mut self) {
        for i in 0..NODES_PER_COMMIT {
            self.nodes[i] = self.node_key();
        }
        self.roots[1] = self.roots[0];
        self.roots[0] = self.root_key();
    }

    /// Writes one commit under the keys [`FloorCommits::prepare`] drew: [`NODES_PER_COMMIT`]
    /// nodes (the first of [`ROOT_BYTES`], the others of [`NODE_BYTES`]) and the two change-log
    /// entries, in one write transaction.
    pub fn commit<S: Store>(&self, store: &S) -> Result<(), KvError> {
        let mut w = store.writer()?;
        for (i, key) in self.nodes.iter().enumerate() {
            let len = if i == 0 { ROOT_BYTES } else { NODE_BYTES };
            w.put(self.main, key, &self.bytes[..len])?;
        }
        for (key, len) in self.roots.iter().zip(CHANGE_LOG_BYTES) {
            w.put(self.change_log, key, &self.bytes[..len])?;
        }
        w.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_kv::btree::BTreeStore;
    use triebench_kv::ReadTx;

    #[test]
    fn the_bytes_are_hex_digits_without_a_short_period() {
        let b = node_like_bytes(ROOT_BYTES);
        assert_eq!(b.len(), ROOT_BYTES);
        assert!(b.iter().all(u8::is_ascii_hexdigit));
        assert_ne!(b[..64], b[64..128], "not a repeated 64-byte block");
    }

    #[test]
    fn a_commit_adds_its_nodes_and_root_entry_and_rewrites_its_parents() {
        let store = BTreeStore::open(triebench_merkle::TABLES).expect("store");
        let mut floor = FloorCommits::new(&store).expect("tables");
        floor.preload(&store).expect("preload");
        let main = store.table("main").expect("main");
        let log = store.table("change_log").expect("change_log");
        let first_parent = floor.roots[0];
        floor.prepare();
        floor.commit(&store).expect("commit");
        floor.prepare();
        floor.commit(&store).expect("commit");
        let r = store.reader().expect("reader");
        let nodes = PRELOADED_NODES + 2 * NODES_PER_COMMIT;
        assert_eq!(r.count(main).expect("count"), nodes as u64);
        // The preloaded parent and one new root per commit: each parent was rewritten.
        assert_eq!(r.count(log).expect("count"), 3);
        let len = |key: &[u8]| r.get_with(log, key, <[u8]>::len).expect("get");
        assert_eq!(len(&first_parent), Some(CHANGE_LOG_BYTES[1]));
        assert_eq!(len(&floor.roots[1]), Some(CHANGE_LOG_BYTES[1]));
        assert_eq!(len(&floor.roots[0]), Some(CHANGE_LOG_BYTES[0]));
    }
}
