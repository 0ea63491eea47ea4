//! The store's cache of nodes by hash ([`ContentCache`]): commits read through it and fill it,
//! a prune evicts what it deletes, and a node another process pruned is written again although
//! this process's cache still holds it (existence is asked of the store, never of the cache).

use triebench_kv::btree::BTreeStore;
use triebench_kv::{ContentCache, KvResult, ReadTx, Store};
use triebench_merkle::{MerkleTrie, StateChange, TABLES};

/// Another handle on a store, as a second process would have, with a node cache of its own
/// (an in-process store has none).
struct Cached<'a> {
    inner: &'a BTreeStore,
    cache: ContentCache,
}

impl Store for Cached<'_> {
    type Reader<'s>
        = <BTreeStore as Store>::Reader<'s>
    where
        Self: 's;
    type Writer<'s>
        = <BTreeStore as Store>::Writer<'s>
    where
        Self: 's;

    fn reader(&self) -> KvResult<Self::Reader<'_>> {
        self.inner.reader()
    }

    fn writer(&self) -> KvResult<Self::Writer<'_>> {
        self.inner.writer()
    }

    fn table_names(&self) -> &[String] {
        self.inner.table_names()
    }

    fn content_cache(&self) -> Option<&ContentCache> {
        Some(&self.cache)
    }
}

fn set(address: &str, value: &[u8]) -> StateChange {
    StateChange::Set {
        address: address.to_string(),
        value: value.to_vec(),
    }
}

fn stored(store: &BTreeStore, hash: &str) -> bool {
    let main = store.table("main").unwrap();
    store
        .reader()
        .unwrap()
        .contains(
            main,
            &triebench_merkle::store_layout::node_key(hash).unwrap(),
        )
        .unwrap()
}

const A: &str = "ab0000";
const B: &str = "ab0a01";

#[test]
fn a_node_pruned_by_another_process_is_written_again_though_cached() {
    let store = BTreeStore::open(TABLES).unwrap();
    let ours = Cached {
        inner: &store,
        cache: ContentCache::new(1 << 20),
    };
    let mut trie = MerkleTrie::new(&ours).unwrap();
    let r1 = trie.commit(&[set(A, b"1"), set(B, b"2")]).unwrap();
    trie.set_root(&r1).unwrap();
    let (hits, _) = ours.cache.hits_and_misses();
    assert_eq!(trie.get(A).unwrap().as_deref(), Some(&b"1"[..]));
    assert!(
        ours.cache.hits_and_misses().0 > hits,
        "a read after a commit is answered from the cache"
    );

    // The other process (no cache) moves A on and prunes r1: r1's leaf for A is deleted.
    let theirs = MerkleTrie::at_root(&store, &r1).unwrap();
    let r2 = theirs.commit(&[set(A, b"9")]).unwrap();
    let deleted = MerkleTrie::prune(&store, &r1).unwrap();
    assert!(!deleted.is_empty());
    let leaf_a1 = deleted
        .iter()
        .find(|h| ours.cache.get_with(h.as_bytes(), |_| ()).is_some())
        .expect("our cache still holds a node the other process pruned")
        .clone();
    assert!(!stored(&store, &leaf_a1));

    // We set A back to 1 on r2: the batch makes nodes the cache holds but the store lost. They
    // must be written, and the new root must read back through a handle without a cache.
    trie.set_root(&r2).unwrap();
    let r3 = trie.commit(&[set(A, b"1")]).unwrap();
    assert_eq!(r3, r1, "same state, same root");
    for hash in &deleted {
        assert!(stored(&store, hash), "node {hash} written again");
    }
    let plain = MerkleTrie::at_root(&store, &r3).unwrap();
    assert_eq!(plain.get(A).unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(plain.get(B).unwrap().as_deref(), Some(&b"2"[..]));
}

#[test]
fn a_prune_evicts_what_it_deletes() {
    let store = BTreeStore::open(TABLES).unwrap();
    let ours = Cached {
        inner: &store,
        cache: ContentCache::new(1 << 20),
    };
    let trie = MerkleTrie::new(&ours).unwrap();
    let r1 = trie.commit(&[set(A, b"1"), set(B, b"2")]).unwrap();
    let at_r1 = MerkleTrie::at_root(&ours, &r1).unwrap();
    let r2 = at_r1.commit(&[set(A, b"3")]).unwrap();
    let deleted = MerkleTrie::prune(&ours, &r1).unwrap();
    assert!(!deleted.is_empty());
    for hash in &deleted {
        assert!(!stored(&store, hash));
        assert!(
            ours.cache.get_with(hash.as_bytes(), |_| ()).is_none(),
            "pruned node {hash} evicted"
        );
    }
    let at_r2 = MerkleTrie::at_root(&ours, &r2).unwrap();
    assert_eq!(at_r2.get(A).unwrap().as_deref(), Some(&b"3"[..]));
    assert_eq!(at_r2.get(B).unwrap().as_deref(), Some(&b"2"[..]));
}
