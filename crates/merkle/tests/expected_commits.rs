//! Commits that state what they expect instead of reading it (a view's commit on the root its
//! previous commit returned, on a store whose reads are round trips) leave the store exactly as
//! the reading commits of an in-process store do, including when another view changed what was
//! expected in between (a fork from the same root, a prune, a commit reaching a live root
//! again): then the precondition fails, nothing of that attempt is applied, and the commit reads
//! and writes again. The reference is the same script on a `BTreeStore`, which always reads.
//! The same holds for commits that prune their parent in the same transaction.

mod common;

use common::contents;
use sha2::{Digest, Sha512};
use triebench_kv::btree::BTreeStore;
use triebench_kv::postgres::{PgOptions, PgStore};
use triebench_kv::redis::{RedisOptions, RedisStore};
use triebench_kv::{Store, WriteTx};
use triebench_merkle::{MerkleTrie, StateChange, TABLES};

fn address(i: u32) -> String {
    hex::encode(&Sha512::digest(format!("{i:016x}").as_bytes())[..32])
}

fn set(i: u32, value: &str) -> StateChange {
    StateChange::Set {
        address: address(i),
        value: value.as_bytes().to_vec(),
    }
}

fn delete(i: u32) -> StateChange {
    StateChange::Delete {
        address: address(i),
    }
}

/// Commits on `view` and follows the new root.
fn step<S: Store>(view: &mut MerkleTrie<'_, S>, changes: &[StateChange]) -> String {
    let root = view.commit(changes).expect("commit");
    view.set_root(&root).expect("set root");
    root
}

/// The script: a line of single-key commits, a fork from the head by another view, the first
/// view going on (its expected parent entry now has the fork as a successor), a prune of the
/// line's oldest roots, a revert to a live root (its entry exists), a commit changing nothing,
/// and a batch adding one node twice. Returns every root returned, in order.
fn script<S: Store>(store: &S) -> Vec<String> {
    let mut roots = Vec::new();
    let mut a = MerkleTrie::new(store).expect("view");
    for i in 0..12 {
        roots.push(step(&mut a, &[set(i, &format!("v{i}"))]));
    }
    let mut b = MerkleTrie::at_root(store, a.root()).expect("second view");
    roots.push(step(&mut b, &[set(100, "fork")]));
    roots.push(step(&mut a, &[set(12, "after the fork")]));
    roots.push(step(&mut a, &[set(13, "v13")]));
    for old in &roots[..3] {
        MerkleTrie::prune(store, old).expect("prune");
    }
    roots.push(step(&mut a, &[set(14, "after a prune")]));
    let before_revert = a.root().to_string();
    roots.push(step(&mut a, &[set(15, "reverted next")]));
    // Back to a live root: its entry exists, so it is reached again.
    roots.push(step(&mut a, &[delete(15)]));
    assert_eq!(
        roots.last(),
        Some(&before_revert),
        "a revert returns the earlier root"
    );
    roots.push(step(&mut a, &[]));
    roots.push(step(&mut a, &[set(16, "twin"), set(17, "twin")]));
    roots.push(step(&mut a, &[set(18, "v18")]));
    roots
}

/// Commits on `view` that each prune the root they build on (`commit_and_prune`), following
/// each new root; returns the root and what the prune deleted.
fn step_pruning<S: Store>(
    view: &mut MerkleTrie<'_, S>,
    changes: &[StateChange],
) -> (String, Vec<String>) {
    let parent = view.root().to_string();
    let done = view
        .commit_and_prune(changes, &parent)
        .expect("commit and prune");
    view.set_root(&done.0).expect("set root");
    done
}

/// The script again with each commit pruning its parent in the same transaction: a line, a
/// fork by another view (the line's next commit finds its expectation broken and commits and
/// prunes again in a second transaction), a commit changing nothing (its prune takes the
/// reached-again count off), and a revert.
fn pruning_script<S: Store>(store: &S) -> Vec<(String, Vec<String>)> {
    let mut done = Vec::new();
    let mut a = MerkleTrie::new(store).expect("view");
    for i in 0..8 {
        done.push(step_pruning(&mut a, &[set(i, &format!("v{i}"))]));
    }
    let mut b = MerkleTrie::at_root(store, a.root()).expect("second view");
    done.push((step(&mut b, &[set(100, "fork")]), Vec::new()));
    done.push(step_pruning(&mut a, &[set(8, "after the fork")]));
    done.push(step_pruning(&mut a, &[set(9, "v9")]));
    done.push(step_pruning(&mut a, &[]));
    done.push(step_pruning(&mut a, &[set(10, "reverted next")]));
    done.push(step_pruning(&mut a, &[delete(10)]));
    done.push(step_pruning(&mut a, &[set(11, "twin"), set(12, "twin")]));
    done
}

/// The stores' tables hold the same entries.
fn same_contents<S: Store>(store: &S, reference: &BTreeStore, name: &str) {
    let (got, want) = (contents(store), contents(reference));
    for ((name_t, got), want) in TABLES.iter().zip(&got).zip(&want) {
        assert_eq!(got.len(), want.len(), "{name}: entries of {name_t}");
        assert!(got == want, "{name}: table {name_t} differs");
    }
}

fn same_as_reading_commits<S: Store>(store: &S, name: &str) {
    let reference = BTreeStore::open(TABLES).expect("btree");
    let want = script(&reference);
    let got = script(store);
    assert_eq!(got, want, "{name}: the roots");
    same_contents(store, &reference, name);
}

/// [`pruning_script`] on `store` (fresh) against the same on a fresh `BTreeStore`.
fn same_as_reading_commits_pruning<S: Store>(store: &S, name: &str) {
    let reference = BTreeStore::open(TABLES).expect("btree");
    let want = pruning_script(&reference);
    let got = pruning_script(store);
    assert_eq!(got, want, "{name}: the roots and what was pruned");
    assert!(
        want.iter()
            .filter(|(_, deleted)| !deleted.is_empty())
            .count()
            >= 8,
        "the script prunes"
    );
    same_contents(store, &reference, name);
}

#[test]
fn postgres_store_ends_as_the_reading_commits_leave_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    same_as_reading_commits(&store, "postgres");
}

/// The same with each commit pruning its parent in the commit's own transaction
/// (`commit_and_prune`): the prune's reads see the attempt's pending writes, and a refused
/// attempt's prune is applied with the commit's second attempt, not lost and not applied twice.
#[test]
fn commits_that_prune_end_as_the_reading_commits_leave_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    same_as_reading_commits_pruning(&store, "postgres");
    let dir = tempfile::tempdir().expect("tempdir");
    let options = RedisOptions {
        net: Some(triebench_kv::net_hop::rtt_micros(0)),
        ..RedisOptions::default()
    };
    let store = RedisStore::open_uncached(dir.path(), TABLES, options).expect("open");
    same_as_reading_commits_pruning(&store, "redis-uncached");
}

/// `redis-uncached` through the delay proxy (at zero delay), where Redis prefers preconditions
/// to reads, and `redis` on the managed server's local socket, where it reads (its node cache
/// answers them).
#[test]
fn redis_store_ends_as_the_reading_commits_leave_it() {
    for net in [Some(triebench_kv::net_hop::rtt_micros(0)), None] {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = RedisOptions {
            net,
            ..RedisOptions::default()
        };
        let store = match net {
            Some(_) => RedisStore::open_uncached(dir.path(), TABLES, options),
            None => RedisStore::open(dir.path(), TABLES, options),
        }
        .expect("open");
        let w = store.writer().expect("writer");
        let prefers = w.prefers_preconditions();
        drop(w);
        assert_eq!(prefers, net.is_some(), "uncached and far only");
        same_as_reading_commits(&store, "redis");
    }
}

/// A commit whose expectation another view broke costs the failed attempt, a check that its
/// root is still logged, and the reading commit; the next one from its own root is one request
/// again.
#[test]
fn a_broken_expectation_costs_one_request_and_then_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let mut a = MerkleTrie::new(&store).expect("view");
    for i in 0..5 {
        step(&mut a, &[set(i, &format!("v{i}"))]);
    }
    let mut b = MerkleTrie::at_root(&store, a.root()).expect("second view");
    step(&mut b, &[set(100, "fork")]);
    // Warm the reading path's statement shapes (the fork read its parent entry).
    let before = store.round_trips();
    let root = a.commit(&[set(5, "v5")]).expect("commit");
    let broken = store.round_trips() - before;
    a.set_root(&root).expect("set root");
    let before = store.round_trips();
    a.commit(&[set(6, "v6")]).expect("commit");
    let expected = store.round_trips() - before;
    println!("broken expectation: {broken} requests; then {expected}");
    assert_eq!(
        broken, 4,
        "the refused attempt, whether the root is still logged, the read, the write"
    );
    assert_eq!(expected, 1, "back to one request");
}

/// Another process (a second store on the same schema, with a node cache of its own) prunes the
/// root a view just committed and follows: the view's next commit finds its expectation broken
/// and the root's change-log entry gone, and refuses with `UnknownRoot` instead of building a
/// root on nodes the prune deleted (the view's own cache still holds them).
#[test]
fn a_root_pruned_by_another_process_is_refused_not_built_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let mut a = MerkleTrie::new(&store).expect("view");
    for i in 0..4 {
        step(&mut a, &[set(i, &format!("v{i}"))]);
    }
    let head = a.root().to_string();

    let other_dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(other_dir.path().join("postgres-schema"), store.schema()).expect("schema");
    let url = store.server().expect("managed").url();
    let options = PgOptions {
        url: Some(url),
        ..PgOptions::default()
    };
    let other = PgStore::open(other_dir.path(), TABLES, options).expect("second store");
    assert!(!MerkleTrie::prune(&other, &head).expect("prune").is_empty());
    drop(other);

    match a.commit(&[set(100, "on a pruned root")]) {
        Err(triebench_merkle::MerkleError::UnknownRoot { root }) => assert_eq!(root, head),
        other => panic!("expected UnknownRoot for {head}, got {other:?}"),
    }
}
