//! How many requests a commit sends a PostgreSQL store (`PgStore::round_trips`): the unit a
//! network hop charges. A single-key commit on the root the view last committed costs one
//! request: its writes, with what it would have read (the new root has no change-log entry, its
//! new nodes are not stored, the parent's entry is as the view wrote it) as preconditions in the
//! same statement. Otherwise a commit costs one request for its reads (both change-log entries
//! and the existence check of its new nodes, across two tables) and one for its writes.
//! Following the root a view just committed (`set_root`) asks nothing; any other root, or one
//! this process pruned since, is asked of the store. A batch of many addresses costs the same,
//! not one request per address.

use sha2::{Digest, Sha512};
use triebench_kv::postgres::{PgOptions, PgStore};
use triebench_merkle::{MerkleTrie, StateChange, TABLES};

fn set(i: u32, value: &[u8]) -> StateChange {
    StateChange::Set {
        address: hex::encode(&Sha512::digest(format!("{i:016x}").as_bytes())[..32]),
        value: value.to_vec(),
    }
}

#[test]
fn a_commit_costs_one_or_two_requests_whatever_its_number_of_addresses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let mut trie = MerkleTrie::new(&store).expect("trie");
    // Grow the trie (and let every statement shape be prepared once).
    for i in 0..40 {
        let root = trie.commit(&[set(i, b"v")]).expect("commit");
        trie.set_root(&root).expect("set root");
    }
    let batch: Vec<StateChange> = (100..130).map(|i| set(i, b"5.0")).collect();
    let root = trie.commit(&batch).expect("warm batch");
    trie.set_root(&root).expect("set root");

    let before = store.round_trips();
    let root = trie.commit(&[set(1000, b"x")]).expect("commit");
    let commit = store.round_trips() - before;
    trie.set_root(&root).expect("set root");
    let follow = store.round_trips() - before - commit;
    println!("single-key commit: {commit} round trips, set_root: {follow}");
    assert_eq!(
        commit, 1,
        "a single-key commit on the view's last root: its writes and preconditions"
    );
    assert_eq!(follow, 0, "set_root takes the root the view just committed");

    // Once this process prunes it, the root is asked of the store again, and refused.
    let tip = trie.commit(&[set(1002, b"tip")]).expect("commit");
    assert!(!MerkleTrie::prune(&store, &tip).expect("prune").is_empty());
    let before = store.round_trips();
    let refused = trie.set_root(&tip);
    assert!(
        matches!(
            refused,
            Err(triebench_merkle::MerkleError::UnknownRoot { .. })
        ),
        "{refused:?}"
    );
    assert_eq!(store.round_trips() - before, 1, "asked of the store");

    // From a root the view did not commit, the commit reads what it needs in one request.
    let mut other = MerkleTrie::at_root(&store, trie.root()).expect("another view");
    let before = store.round_trips();
    let root = other.commit(&[set(1001, b"y")]).expect("commit");
    let fork = store.round_trips() - before;
    assert_eq!(fork, 2, "one read request, one write: {fork}");
    other.set_root(&root).expect("set root");

    // 30 new addresses whose leaves are equal (one node added 30 times, counted in
    // duplicate_log) and new: reference counts to read, so one read request and one write.
    let batch: Vec<StateChange> = (200..230).map(|i| set(i, b"fresh")).collect();
    let before = store.round_trips();
    let root = trie.commit(&batch).expect("batch");
    let batch_trips = store.round_trips() - before;
    trie.set_root(&root).expect("set root");
    println!("30-address commit, new nodes: {batch_trips} round trips");
    assert_eq!(
        batch_trips, 2,
        "a batch's reads in one request, its writes in one"
    );

    // 30 more with the value stored above: their leaf, and equal chains above it, are stored
    // already, so existence takes a second round (every undecided node at once) and the
    // re-reached nodes' counts one more request; never one per address or per level.
    let batch: Vec<StateChange> = (300..330).map(|i| set(i, b"fresh")).collect();
    let before = store.round_trips();
    trie.commit(&batch).expect("batch");
    let batch_trips = store.round_trips() - before;
    println!("30-address commit, stored nodes reached again: {batch_trips} round trips");
    assert!(
        (2..=4).contains(&batch_trips),
        "reads in at most three requests, writes in one: {batch_trips}"
    );

    // Pruning the oldest root of the line releases what its successor replaced: its entry, its
    // parent's, every released node's count and presence in one request, and the writes.
    let oldest = MerkleTrie::new(&store).expect("trie").root().to_string();
    let first = MerkleTrie::prune(&store, &oldest).expect("prune the empty root: nothing");
    assert!(first.is_empty());
    let mut line = Vec::new();
    let mut trie = MerkleTrie::new(&store).expect("trie");
    for i in 2000..2004 {
        let root = trie.commit(&[set(i, b"p")]).expect("commit");
        trie.set_root(&root).expect("set root");
        line.push(root);
    }
    // The first prune prepares its statements' shapes; the second is counted.
    assert!(!MerkleTrie::prune(&store, &line[0])
        .expect("prune")
        .is_empty());
    let before = store.round_trips();
    let deleted = MerkleTrie::prune(&store, &line[1]).expect("prune");
    let prune_trips = store.round_trips() - before;
    println!(
        "prune releasing {} nodes: {prune_trips} round trips",
        deleted.len()
    );
    assert!(
        !deleted.is_empty(),
        "the oldest root of its line is released"
    );
    assert_eq!(
        prune_trips, 4,
        "entry, parent's entry, one request for the nodes, the writes"
    );
}
