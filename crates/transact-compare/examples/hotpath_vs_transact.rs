//! The `hotpath` example's commit shapes on triebench's trie over its `btree` store and on
//! Transact 0.4.7's `MerkleState` over its `BTreeDatabase`: the times, their ratio, and the
//! roots (which must be equal; the example fails if one is not).
//!
//! Run with `cargo run --release --manifest-path crates/transact-compare/Cargo.toml --example
//! hotpath_vs_transact [ROUNDS]` (ROUNDS defaults to 5).
//!
//! Shapes, with the keys of the `update` workload (`triebench_workloads::update_address(i)`
//! holding `update_key(i)`, i in 0..1000), as in `crates/merkle/examples/hotpath.rs`:
//!
//! * (a) the 1000 sets as 1000 single-key commits, each on the root the one before made;
//! * (b) the 1000 sets in one commit on a fresh (empty) trie;
//! * (c') on a store that already holds (b)'s commit, the same 1000 sets plus one new key in
//!   one commit on the empty root: every node but the new key's path is already stored.
//!
//! Each round runs every shape once on each implementation, alternating, each on a store of
//! its own made (and for (c') filled) before the clock starts; the fastest of the rounds is
//! reported for each, so both sides are taken over the same minutes of a shared machine.

use std::error::Error;
use std::time::{Duration, Instant};

use transact::database::btree::BTreeDatabase;
use transact::state::merkle::{MerkleRadixTree, MerkleState, INDEXES};
use transact::state::{StateChange as TransactChange, Write};
use triebench_kv::btree::BTreeStore;
use triebench_merkle::{MerkleTrie, StateChange, TABLES};
use triebench_workloads::{update_address, update_key, UPDATE_KEYS, UPDATE_LOADED_ROOT};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// One shape's changes, in both vocabularies: a list of commits.
struct Shape {
    name: &'static str,
    ours: Vec<Vec<StateChange>>,
    theirs: Vec<Vec<TransactChange>>,
    /// Whether the store first holds (b)'s commit (untimed).
    prefilled: bool,
}

/// A fresh triebench store with its trie opened (the empty root stored), and with (b)'s
/// commit made when `fill` is given.
fn our_store(fill: Option<&[StateChange]>) -> Result<BTreeStore> {
    let store = BTreeStore::open(TABLES)?;
    let trie = MerkleTrie::new(&store)?;
    if let Some(changes) = fill {
        trie.commit(changes)?;
    }
    Ok(store)
}

/// Runs `commits` on triebench's trie from the empty root, each on the root the one before
/// made; the time and the last root.
fn run_ours(store: &BTreeStore, commits: &[Vec<StateChange>]) -> Result<(Duration, String)> {
    let start = Instant::now();
    let mut trie = MerkleTrie::new(store)?;
    let mut root = trie.root().to_string();
    for changes in commits {
        root = trie.commit(changes)?;
        trie.set_root(&root)?;
    }
    Ok((start.elapsed(), root))
}

/// A fresh Transact state over its `BTreeDatabase` and its empty root (stored), with (b)'s
/// commit made when `fill` is given.
fn their_state(fill: Option<&[TransactChange]>) -> Result<(MerkleState, String)> {
    let db = BTreeDatabase::new(&INDEXES);
    let initial = MerkleRadixTree::new(Box::new(db.clone()), None)?.get_merkle_root();
    let state = MerkleState::new(Box::new(db));
    if let Some(changes) = fill {
        state.commit(&initial, changes)?;
    }
    Ok((state, initial))
}

/// As [`run_ours`], on Transact's state from `initial`.
fn run_theirs(
    state: &MerkleState,
    initial: &str,
    commits: &[Vec<TransactChange>],
) -> Result<(Duration, String)> {
    let start = Instant::now();
    let mut root = initial.to_string();
    for changes in commits {
        root = state.commit(&root, changes)?;
    }
    Ok((start.elapsed(), root))
}

fn main() -> Result<()> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 5,
    };
    let keys: Vec<(String, Vec<u8>)> = (0..UPDATE_KEYS)
        .map(|i| (update_address(i), update_key(i).into_bytes()))
        .collect();
    let ours = |(address, value): &(String, Vec<u8>)| StateChange::Set {
        address: address.clone(),
        value: value.clone(),
    };
    let theirs = |(address, value): &(String, Vec<u8>)| TransactChange::Set {
        key: address.clone(),
        value: value.clone(),
    };
    let all_ours: Vec<StateChange> = keys.iter().map(ours).collect();
    let all_theirs: Vec<TransactChange> = keys.iter().map(theirs).collect();
    let extra = ("00".repeat(32), b"extra".to_vec());
    let plus_one = |all: &[StateChange]| {
        let mut v = all.to_vec();
        v.push(ours(&extra));
        v
    };
    let mut plus_one_theirs = all_theirs.clone();
    plus_one_theirs.push(theirs(&extra));
    let shapes = [
        Shape {
            name: "(a) 1000 single-key commits",
            ours: all_ours.iter().map(|c| vec![c.clone()]).collect(),
            theirs: all_theirs.iter().map(|c| vec![c.clone()]).collect(),
            prefilled: false,
        },
        Shape {
            name: "(b) 1000 sets, one commit, fresh trie",
            ours: vec![all_ours.clone()],
            theirs: vec![all_theirs.clone()],
            prefilled: false,
        },
        Shape {
            name: "(c') same + 1 new key, nodes stored",
            ours: vec![plus_one(&all_ours)],
            theirs: vec![plus_one_theirs],
            prefilled: true,
        },
    ];

    let mut best = vec![(Duration::MAX, Duration::MAX); shapes.len()];
    let mut roots = vec![(String::new(), String::new()); shapes.len()];
    for round in 0..rounds {
        eprint!("\rround {}/{rounds}", round + 1);
        for (s, shape) in shapes.iter().enumerate() {
            let store = our_store(shape.prefilled.then_some(&all_ours[..]))?;
            let (ours_time, our_root) = run_ours(&store, &shape.ours)?;
            drop(store);
            let (state, initial) = their_state(shape.prefilled.then_some(&all_theirs[..]))?;
            let (their_time, their_root) = run_theirs(&state, &initial, &shape.theirs)?;
            drop(state);
            best[s].0 = best[s].0.min(ours_time);
            best[s].1 = best[s].1.min(their_time);
            roots[s] = (our_root, their_root);
        }
    }
    eprintln!();

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "best of {rounds} rounds | triebench (btree store) | Transact 0.4.7 (BTreeDatabase) | \
         Transact / triebench"
    );
    let mut mismatched = Vec::new();
    for ((shape, (ours_time, their_time)), (our_root, their_root)) in
        shapes.iter().zip(&best).zip(&roots)
    {
        println!(
            "{:<40} {:>10.2} ms {:>12.2} ms {:>8.1}x",
            shape.name,
            ms(*ours_time),
            ms(*their_time),
            their_time.as_secs_f64() / ours_time.as_secs_f64()
        );
        let equal = our_root == their_root;
        println!(
            "    root {our_root} ({})",
            if equal { "equal on both" } else { "DIFFERS" }
        );
        if !equal {
            mismatched.push(format!(
                "{}: triebench {our_root}, Transact {their_root}",
                shape.name
            ));
        }
    }
    // (a) ends at the design's vector: both sides computed the right root, not just the same.
    if roots[0].0 != UPDATE_LOADED_ROOT {
        mismatched.push(format!(
            "(a): {} is not the expected {UPDATE_LOADED_ROOT}",
            roots[0].0
        ));
    }
    if !mismatched.is_empty() {
        return Err(format!("roots differ: {}", mismatched.join("; ")).into());
    }
    Ok(())
}
