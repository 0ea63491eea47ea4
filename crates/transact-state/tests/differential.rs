//! Differential test: triebench-transact-state against Transact 0.4.7's own `MerkleState` (over its
//! in-memory `BTreeDatabase`), commit by commit, on seeded random chains.
//!
//! Each block is a random batch: sets (new values, and values set again to what they hold),
//! deletes of held addresses, a set and a delete of one address in either order (Transact's
//! rule: the delete wins), empty batches. Before each commit both compute the virtual root;
//! after it, both must agree on the root, on reads of held and absent addresses, on the leaf
//! listing of the whole state and of a prefix, and on the nodes a prune deletes: after each
//! block the root of `LAG` blocks ago is pruned, as a node keeping the last `LAG` heads does,
//! and every head kept is read back on both.
//!
//! Addresses have three tokens from a small alphabet (paths share nodes, sibling subtrees
//! repeat) and never sit on each other's path, which keeps clear of the cases where Transact is
//! wrong (values on interior nodes; `transact-compare/tests/transact_is_wrong.rs`), and batches
//! that hit Transact's fault 4 (`transact_faults.rs`) are drawn again. Transact's fault 3 ends a
//! chain when it strikes (its head no longer reads back); the counts are printed.
//!
//! `TRIEBENCH_DIFF_TRACE=1` prints every block's batch, to reduce a failure by hand.

use std::collections::{BTreeMap, BTreeSet};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use transact::database::btree::BTreeDatabase;
use transact::state::merkle::{MerkleRadixLeafReader, MerkleRadixTree, MerkleState, INDEXES};
use transact::state::{Prune, Read, StateChange, Write};
use triebench_kv::AnyStore;
use triebench_transact_state::TransactState;

/// Heads kept: after each block, the root of `LAG` blocks ago is pruned.
const LAG: usize = 3;

/// What a chain's blocks may do, and how its prunes are compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Chain {
    /// Every block ends at a root new to the chain, and both sides prune the root of `LAG`
    /// blocks ago after each block: the nodes each prune deletes must be the same.
    NewRoots,
    /// Blocks may change nothing (empty batches, values set again) or return to an earlier
    /// root. Here the two differ by design, so only ours prunes (the root of `LAG` blocks ago
    /// after every block, as Transact's own `prune_deep_successor_tree` does): Transact 0.4.7
    /// deletes its live head when that prune follows an empty batch, and never releases a root
    /// reached again by a non-empty batch; ours releases such a root on the prune of the last
    /// commit that reached it. Roots, reads and listings of every head must still agree.
    NoOps,
}

/// Both sides, and the chain so far.
struct Pair {
    chain: Chain,
    /// Every root the chain has reached.
    seen: BTreeSet<String>,
    ours: TransactState<AnyStore>,
    theirs: MerkleState,
    /// The mapping at the head, the test's model.
    model: BTreeMap<String, Vec<u8>>,
    /// The last roots with their mappings, oldest first (at most `LAG + 1`).
    heads: Vec<(String, BTreeMap<String, Vec<u8>>)>,
    /// Set when Transact deleted a node one of its heads still uses (fault 3 of "Where
    /// Transact is wrong"): its side of the chain can no longer be read, so the chain ends.
    transact_lost_a_head: Option<String>,
    /// What was compared, for the summary line.
    counts: Counts,
}

#[derive(Default, Debug)]
struct Counts {
    commits: usize,
    no_op_commits: usize,
    reads: usize,
    listings: usize,
    prunes: usize,
    nodes_pruned: usize,
    /// Nodes ours deleted that Transact keeps although no head uses them (Transact's leaks).
    transact_kept_unused: usize,
    /// Chains cut short because Transact deleted a node its head uses.
    transact_lost_a_head: usize,
    /// Batches drawn and redrawn because Transact gets their root wrong (see
    /// `leaves_transact_an_empty_node`).
    skipped_transact_fault: usize,
}

/// Whether Transact 0.4.7 leaves an empty node in the trie for this batch, so that its root is
/// not the mapping's: an address both set and deleted in the batch whose removal empties one of
/// its ancestors (no address held under that prefix afterwards). Transact keeps every ancestor
/// of a set address as a node, even one the deletes leave with no value and no child. Ours is
/// the mapping's root there; `transact-compare/tests/transact_is_wrong.rs` shows the case.
fn leaves_transact_an_empty_node(
    changes: &[StateChange],
    next: &BTreeMap<String, Vec<u8>>,
) -> bool {
    let set: BTreeSet<&str> = changes
        .iter()
        .filter_map(|c| match c {
            StateChange::Set { key, .. } => Some(key.as_str()),
            StateChange::Delete { .. } => None,
        })
        .collect();
    changes.iter().any(|c| match c {
        StateChange::Delete { key } if set.contains(key.as_str()) => (2..key.len())
            .step_by(2)
            .any(|end| !next.keys().any(|held| held.starts_with(&key[..end]))),
        _ => false,
    })
}

fn address(rng: &mut SmallRng) -> String {
    // First token from 3 values, second from 3, third from 6: 54 addresses, many shared paths.
    const A: [u8; 3] = [0x00, 0x5a, 0xff];
    const B: [u8; 3] = [0x01, 0x10, 0xab];
    format!(
        "{:02x}{:02x}{:02x}",
        A[rng.gen_range(0..3)],
        B[rng.gen_range(0..3)],
        rng.gen_range(0u8..6) * 0x21
    )
}

fn value(rng: &mut SmallRng) -> Vec<u8> {
    // Lengths on both sides of CBOR's one-byte length header (23/24) and a few small ones.
    let len = [0, 1, 5, 23, 24, 40][rng.gen_range(0..6)];
    (0..len).map(|_| rng.gen_range(0u8..4)).collect()
}

impl Pair {
    fn new(ours: TransactState<AnyStore>, chain: Chain) -> Pair {
        let db = Box::new(BTreeDatabase::new(&INDEXES));
        let theirs = MerkleState::new(db.clone());
        let root = MerkleRadixTree::new(db, None).unwrap().get_merkle_root();
        assert_eq!(root, ours.initial_root(), "empty roots differ");
        Pair {
            chain,
            seen: BTreeSet::from([root.clone()]),
            ours,
            theirs,
            model: BTreeMap::new(),
            heads: vec![(root, BTreeMap::new())],
            transact_lost_a_head: None,
            counts: Counts::default(),
        }
    }

    fn head(&self) -> String {
        self.heads
            .last()
            .map(|(root, _)| root.clone())
            .unwrap_or_default()
    }

    /// A random block's batch, and the model after it under Transact's rule.
    fn batch(&self, rng: &mut SmallRng) -> (Vec<StateChange>, BTreeMap<String, Vec<u8>>) {
        let mut changes = Vec::new();
        let held: Vec<&String> = self.model.keys().collect();
        let kind = rng.gen_range(0..10);
        if kind == 0 {
            return (changes, self.model.clone()); // empty block
        }
        if kind == 1 && !held.is_empty() {
            // A block that sets values to what they already are: changes nothing.
            for _ in 0..rng.gen_range(1..4) {
                let key = held[rng.gen_range(0..held.len())].clone();
                let value = self.model[&key].clone();
                changes.push(StateChange::Set { key, value });
            }
            return (changes, self.model.clone());
        }
        let mut deleted = BTreeSet::new();
        for _ in 0..rng.gen_range(1..7) {
            match rng.gen_range(0..10) {
                0..=5 => changes.push(StateChange::Set {
                    key: address(rng),
                    value: value(rng),
                }),
                6..=7 if !held.is_empty() => {
                    let key = held[rng.gen_range(0..held.len())].clone();
                    if deleted.insert(key.clone()) {
                        changes.push(StateChange::Delete { key });
                    }
                }
                _ if !held.is_empty() => {
                    // A set and a delete of one held address, in either order.
                    let key = held[rng.gen_range(0..held.len())].clone();
                    if deleted.insert(key.clone()) {
                        let set = StateChange::Set {
                            key: key.clone(),
                            value: value(rng),
                        };
                        let delete = StateChange::Delete { key };
                        if rng.gen_bool(0.5) {
                            changes.extend([set, delete]);
                        } else {
                            changes.extend([delete, set]);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut next = self.model.clone();
        for change in &changes {
            if let StateChange::Set { key, value } = change {
                if !deleted.contains(key) {
                    next.insert(key.clone(), value.clone());
                }
            }
        }
        for key in &deleted {
            next.remove(key);
        }
        (changes, next)
    }

    fn step(&mut self, rng: &mut SmallRng, label: &str) {
        let parent = self.head();
        let (changes, next) = loop {
            let (changes, next) = self.batch(rng);
            if leaves_transact_an_empty_node(&changes, &next) {
                self.counts.skipped_transact_fault += 1;
                continue;
            }
            let new_root = || {
                let root = triebench_merkle::reference::root_of(&next).unwrap();
                !self.seen.contains(&root)
            };
            if self.chain == Chain::NoOps || new_root() {
                break (changes, next);
            }
        };
        let virtual_ours = self.ours.compute_state_id(&parent, &changes).unwrap();
        let virtual_theirs = self.theirs.compute_state_id(&parent, &changes).unwrap();
        let mapping = triebench_merkle::reference::root_of(&next).unwrap();
        assert_eq!(
            virtual_ours, mapping,
            "{label}: ours is not the mapping's root"
        );
        assert_eq!(
            virtual_theirs, mapping,
            "{label}: Transact's is not the mapping's root"
        );
        assert_eq!(
            virtual_ours, virtual_theirs,
            "{label}: virtual roots of {changes:?}"
        );
        if std::env::var("TRIEBENCH_DIFF_TRACE").is_ok() {
            eprintln!("TRACE {label}: {changes:?}");
        }
        let ours = self.ours.commit(&parent, &changes).unwrap();
        let theirs = self.theirs.commit(&parent, &changes).unwrap();
        assert_eq!(ours, theirs, "{label}: roots of {changes:?}");
        assert_eq!(
            ours, virtual_ours,
            "{label}: commit differs from its virtual root"
        );
        self.counts.commits += 1;
        if ours == parent {
            self.counts.no_op_commits += 1;
        }
        self.seen.insert(ours.clone());
        self.heads.push((ours, next.clone()));
        self.model = next;

        self.compare_reads(rng, label);
        self.compare_listings(rng, label);
        if self.heads.len() > LAG {
            let (old, _) = self.heads.remove(0);
            match self.chain {
                Chain::NewRoots => {
                    self.compare_prune(&old, label);
                    if self.transact_lost_a_head.is_some() {
                        return;
                    }
                }
                Chain::NoOps => {
                    let deleted = self.ours.prune(vec![old]).unwrap();
                    self.counts.prunes += 1;
                    self.counts.nodes_pruned += deleted.len();
                }
            }
        }
        for (head, _) in self.heads.clone() {
            self.read_back(&head, label);
        }
    }

    fn compare_reads(&mut self, rng: &mut SmallRng, label: &str) {
        let head = self.head();
        let mut keys: Vec<String> = (0..6).map(|_| address(rng)).collect();
        keys.extend(self.model.keys().take(3).cloned());
        let ours = self.ours.get(&head, &keys).unwrap();
        let theirs = self.theirs.get(&head, &keys).unwrap();
        assert_eq!(ours, theirs, "{label}: reads of {keys:?}");
        for key in &keys {
            assert_eq!(
                ours.get(key),
                self.model.get(key),
                "{label}: model at {key}"
            );
        }
        self.counts.reads += keys.len();
    }

    fn compare_listings(&mut self, rng: &mut SmallRng, label: &str) {
        let head = self.head();
        let all = |s: &dyn MerkleRadixLeafReader, prefix: Option<&str>| -> Vec<(String, Vec<u8>)> {
            s.leaves(&head, prefix)
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        let ours = all(&self.ours, None);
        assert_eq!(ours, all(&self.theirs, None), "{label}: leaves");
        let model: Vec<(String, Vec<u8>)> = self
            .model
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(ours, model, "{label}: leaves against the model");
        // A prefix that leads to a node (Transact answers an error for one that does not).
        if let Some((key, _)) = self
            .model
            .iter()
            .nth(rng.gen_range(0..self.model.len().max(1)))
        {
            let prefix = &key[..[2, 4][rng.gen_range(0..2)]];
            assert_eq!(
                all(&self.ours, Some(prefix)),
                all(&self.theirs, Some(prefix)),
                "{label}: leaves under {prefix}"
            );
        }
        self.counts.listings += 2;
    }

    /// Prunes `root` on both sides and compares the nodes deleted. Ours must delete exactly
    /// the nodes no head uses any more (after the prune, its store holds exactly the nodes of
    /// the heads' mappings); Transact's may differ only by its known faults, which are counted:
    /// a node no head uses that it keeps, or a node a head uses that it deletes (which ends
    /// the chain, since Transact's head no longer reads back).
    fn compare_prune(&mut self, root: &str, label: &str) {
        let ours: BTreeSet<String> = self
            .ours
            .prune(vec![root.to_string()])
            .unwrap()
            .into_iter()
            .collect();
        let theirs: BTreeSet<String> = self
            .theirs
            .prune(vec![root.to_string()])
            .unwrap()
            .into_iter()
            .collect();
        self.counts.prunes += 1;
        self.counts.nodes_pruned += ours.len();
        let live: BTreeSet<String> = self
            .heads
            .iter()
            .flat_map(|(_, mapping)| {
                triebench_merkle::reference::node_hashes(mapping)
                    .unwrap()
                    .into_values()
            })
            .collect();
        for node in ours.difference(&theirs) {
            assert!(
                !live.contains(node),
                "{label}: ours deleted {node}, which a head uses"
            );
            self.counts.transact_kept_unused += 1;
        }
        for node in theirs.difference(&ours) {
            assert!(
                live.contains(node),
                "{label}: Transact deleted {node}, which no head uses, and ours kept it"
            );
            eprintln!("{label}: Transact deleted {node}, which a head uses (pruning {root})");
            self.transact_lost_a_head = Some(node.clone());
            self.counts.transact_lost_a_head += 1;
        }
        // The empty root's node is stored when a state opens and kept (it has no change log).
        let mut expected = live;
        expected.insert(triebench_merkle::EMPTY_ROOT.to_string());
        assert_eq!(
            stored_nodes(&self.ours),
            expected,
            "{label}: ours after pruning {root}"
        );
    }

    fn read_back(&self, root: &str, label: &str) {
        let ours: Vec<_> = self
            .ours
            .leaves(&root.to_string(), None)
            .unwrap_or_else(|e| panic!("{label}: head {root} no longer opens on ours: {e}"))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{label}: head {root} lost a node on ours: {e}"));
        let theirs: Vec<_> = self
            .theirs
            .leaves(&root.to_string(), None)
            .unwrap_or_else(|e| panic!("{label}: head {root} no longer opens on Transact: {e}"))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{label}: head {root} lost a node on Transact: {e}"));
        assert_eq!(ours, theirs, "{label}: head {root} reads back differently");
    }
}

/// The hashes of every node in our store, as hex: `main`'s keys are the raw 32-byte hashes,
/// beside one row that is not a node (the layout marker, under a key of another length).
fn stored_nodes(state: &TransactState<AnyStore>) -> BTreeSet<String> {
    use triebench_kv::{KeyRange, ReadTx, Store};
    let store = state.trie().store();
    let main = store.table("main").unwrap();
    let mut out = BTreeSet::new();
    let mut other = 0;
    store
        .reader()
        .unwrap()
        .scan(main, &KeyRange::all(), |key, _| {
            match key.len() {
                32 => out.insert(key.iter().map(|b| format!("{b:02x}")).collect()),
                _ => {
                    assert_eq!(key, triebench_merkle::store_layout::LAYOUT_KEY);
                    other += 1;
                    true
                }
            };
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(other, triebench_merkle::store_layout::NON_NODE_ENTRIES);
    out
}

/// Runs `chains` seeded chains of each kind, `blocks` blocks long, on `profile`.
fn differential(profile: &str, chains: u64, blocks: usize) {
    for chain in [Chain::NewRoots, Chain::NoOps] {
        run_chains(profile, chain, chains, blocks);
    }
}

fn run_chains(profile: &str, chain: Chain, chains: u64, blocks: usize) {
    let mut total = Counts::default();
    for seed in 0..chains {
        let dir = tempfile::tempdir().unwrap();
        let dir_arg = (profile != "btree").then_some(dir.path());
        let ours = triebench_transact_state::open(profile, dir_arg)
            .unwrap_or_else(|e| panic!("open {profile}: {e}"));
        let mut pair = Pair::new(ours, chain);
        let mut rng = SmallRng::seed_from_u64(seed);
        for block in 0..blocks {
            pair.step(
                &mut rng,
                &format!("{profile} {chain:?} seed {seed} block {block}"),
            );
            if pair.transact_lost_a_head.is_some() {
                break;
            }
        }
        let c = &pair.counts;
        total.commits += c.commits;
        total.no_op_commits += c.no_op_commits;
        total.reads += c.reads;
        total.listings += c.listings;
        total.prunes += c.prunes;
        total.nodes_pruned += c.nodes_pruned;
        total.skipped_transact_fault += c.skipped_transact_fault;
        total.transact_kept_unused += c.transact_kept_unused;
        total.transact_lost_a_head += c.transact_lost_a_head;
    }
    eprintln!("{profile} {chain:?}: {chains} chains, equal on {total:?}");
    assert!(total.nodes_pruned > 0, "{total:?}");
    assert_eq!(chain == Chain::NoOps, total.no_op_commits > 0, "{total:?}");
}

#[test]
fn same_as_transact_on_btree() {
    differential("btree", 20, 150);
}

#[test]
fn same_as_transact_on_lmdb() {
    differential("lmdb", 5, 150);
}

#[test]
fn same_as_transact_on_sqlite() {
    differential("sqlite-wal-full", 5, 150);
}

#[test]
fn same_as_transact_on_postgres() {
    differential("postgres", 2, 100);
}
