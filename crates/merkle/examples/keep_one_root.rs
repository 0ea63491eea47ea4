//! Times a node's "keep one root" loop: blocks of a few keys, each committed on the head and
//! the root it built on pruned, with the prune in a transaction of its own (`commit`, then
//! `prune`) and in the commit's (`commit_and_prune`).
//!
//! Run with `cargo run --release -p triebench-merkle --example keep_one_root -- DIR [PROFILE...]`
//! (default profiles: `lmdb`, `sqlite-wal-full`, `sqlite-wal`). Each round preloads a fresh
//! store of each profile under DIR with 10,000 leaves, then runs 300 blocks of 10 keys both
//! ways, alternating which goes first; it reports each way's fastest round and their ratio.
//! Both ways end at the same root and delete as many nodes (checked).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha512};
use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_merkle::{MerkleError, MerkleTrie, StateChange, TABLES};

const PRELOAD: u32 = 10_000;
const BLOCKS: u32 = 300;
const KEYS_PER_BLOCK: u32 = 10;
const ROUNDS: usize = 5;

fn change(i: u32, round: u32) -> StateChange {
    StateChange::Set {
        address: hex::encode(&Sha512::digest(format!("{i:016x}").as_bytes())[..32]),
        value: format!("{i}-{round}").into_bytes(),
    }
}

/// One way's run on a fresh store: the preload, then the blocks timed. Returns the time, the
/// last root and how many nodes the prunes deleted.
struct Blocks {
    together: bool,
}

impl StoreVisitor for Blocks {
    type Output = Result<(Duration, String, usize), MerkleError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let mut trie = MerkleTrie::new(&store)?;
        // One commit from the empty root: its root is then the oldest of its line, so the
        // first block's prune takes effect (a prune whose root's parent is live is a no-op).
        let preload: Vec<StateChange> = (0..PRELOAD).map(|i| change(i, 0)).collect();
        let root = trie.commit(&preload)?;
        trie.set_root(&root)?;
        let mut deleted = 0;
        let start = Instant::now();
        for block in 0..BLOCKS {
            let changes: Vec<StateChange> = (0..KEYS_PER_BLOCK)
                .map(|k| change((block * 7_919 + k * 104_729) % PRELOAD, block + 1))
                .collect();
            let parent = trie.root().to_string();
            let root = if self.together {
                let (root, gone) = trie.commit_and_prune(&changes, &parent)?;
                deleted += gone.len();
                root
            } else {
                let root = trie.commit(&changes)?;
                deleted += MerkleTrie::prune(&store, &parent)?.len();
                root
            };
            trie.set_root(&root)?;
        }
        Ok((start.elapsed(), trie.root().to_string(), deleted))
    }
}

fn run(profile: Profile, dir: &std::path::Path, together: bool) -> (Duration, String, usize) {
    let parent = tempfile::tempdir_in(dir).expect("a directory under DIR");
    let stores = FreshStores::new(profile, parent.path()).expect("stores");
    stores
        .run(TABLES, Blocks { together })
        .expect("store")
        .expect("blocks")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().expect("usage: keep_one_root DIR [PROFILE...]"));
    let mut profiles: Vec<Profile> = args
        .map(|name| name.parse().expect("a profile name"))
        .collect();
    if profiles.is_empty() {
        profiles = vec![Profile::Lmdb, Profile::SqliteWalFull, Profile::SqliteWal];
    }
    println!(
        "{BLOCKS} blocks of {KEYS_PER_BLOCK} keys on {PRELOAD} leaves, each pruning its parent; \
         fastest of {ROUNDS} rounds"
    );
    for profile in profiles {
        let (mut apart, mut one) = (Duration::MAX, Duration::MAX);
        for round in 0..ROUNDS {
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            let mut ends = Vec::new();
            for together in order {
                let (took, root, deleted) = run(profile, &dir, together);
                ends.push((root, deleted));
                let best = if together { &mut one } else { &mut apart };
                *best = (*best).min(took);
            }
            assert_eq!(
                ends[0], ends[1],
                "both ways end at the same root, pruning alike"
            );
            assert!(ends[0].1 > 0, "the prunes deleted nodes");
        }
        let per_block = |d: Duration| d.as_secs_f64() * 1e3 / f64::from(BLOCKS);
        println!(
            "{profile}: two transactions {:.3} ms/block, one {:.3} ms/block, one / two {:.2}",
            per_block(apart),
            per_block(one),
            one.as_secs_f64() / apart.as_secs_f64()
        );
    }
}
