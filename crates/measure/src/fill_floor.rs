//! The growth fill's storage floor (`triebench grow --fill-floor DIR`): two more stores of the
//! curve's profile in `DIR` (`sorted/`, `shuffled/`, on the filesystem under test), and each
//! fill commit's writes, recorded as the trie made them (new nodes, change-log entries, the
//! prune's deletions), replayed onto both right after the commit, in the same transactions:
//! onto `sorted` in the trie's order (a commit's new nodes go out in key order), onto
//! `shuffled` with each `put_many`'s entries shuffled. Nothing is read or hashed there, so the
//! fill's time over the floor's, taken batch by batch in one process, is what the trie adds to
//! storing the same bytes, and the two floors say what the order of the puts is worth. The
//! shuffled store can be left out (`--fill-floor-trie-order-only`) where a third copy of the
//! state does not fit the filesystem.

use std::time::{Duration, Instant};

use triebench_kv::{AnyStore, BackendSpec, KvError, Store};
use triebench_merkle::TABLES;
use triebench_record::grow::FillFloor;
use triebench_workloads::floor::{shuffle_entries, Replayer, Write};
use triebench_workloads::rng::XorShift64Star;

use crate::error::MeasureError;

/// One store of the floor and its tables.
struct FloorStore {
    store: AnyStore,
    replayer: Replayer,
    took: Duration,
}

impl FloorStore {
    fn open(spec: &BackendSpec) -> Result<Self, KvError> {
        let store = spec.open_any(TABLES)?;
        // The recording store is the trie's, opened with the same tables.
        let replayer = Replayer::new(&store, store.table_names())?;
        Ok(FloorStore {
            store,
            replayer,
            took: Duration::ZERO,
        })
    }

    fn replay(&mut self, transactions: &[Vec<Write>]) -> Result<(), KvError> {
        let start = Instant::now();
        self.replayer.replay(&self.store, transactions)?;
        self.took += start.elapsed();
        Ok(())
    }
}

/// Where the floor's stores live: the trie's order always, shuffled unless left out.
#[derive(Debug, Clone)]
pub struct FloorSpecs {
    /// The store the writes are replayed onto in the trie's order.
    pub sorted: BackendSpec,
    /// The store they are replayed onto shuffled; `None` to leave that floor out.
    pub shuffled: Option<BackendSpec>,
}

/// The floor's stores, open for the whole curve, and what they took over the current stretch
/// of the fill.
pub struct FillFloors {
    sorted: FloorStore,
    shuffled: Option<FloorStore>,
    rng: XorShift64Star,
    entries: u64,
    bytes: u64,
}

impl FillFloors {
    /// Opens the floor's stores: `specs` are of the curve's profile, each in a directory of its
    /// own on the filesystem under test (none for an in-memory profile).
    pub fn open(specs: &FloorSpecs, seed: u64) -> Result<Self, MeasureError> {
        Ok(FillFloors {
            sorted: FloorStore::open(&specs.sorted)?,
            shuffled: specs.shuffled.as_ref().map(FloorStore::open).transpose()?,
            rng: XorShift64Star::new(seed ^ 0x5eed_f100),
            entries: 0,
            bytes: 0,
        })
    }

    /// Replays one fill commit's recorded transactions onto the floor's stores (the shuffling
    /// is not timed).
    pub fn replay(&mut self, mut transactions: Vec<Vec<Write>>) -> Result<(), MeasureError> {
        for write in transactions.iter().flatten() {
            self.entries += write.entries() as u64;
            self.bytes += write.bytes() as u64;
        }
        self.sorted.replay(&transactions)?;
        if let Some(shuffled) = &mut self.shuffled {
            shuffle_entries(&mut transactions, &mut self.rng);
            shuffled.replay(&transactions)?;
        }
        Ok(())
    }

    /// What the stretch since the last call cost the floor; the counts start again.
    pub fn take_stretch(&mut self) -> FillFloor {
        let floor = FillFloor {
            sorted_secs: self.sorted.took.as_secs_f64(),
            shuffled_secs: self.shuffled.as_ref().map(|s| s.took.as_secs_f64()),
            entries: self.entries,
            bytes: self.bytes,
        };
        self.sorted.took = Duration::ZERO;
        if let Some(shuffled) = &mut self.shuffled {
            shuffled.took = Duration::ZERO;
        }
        self.entries = 0;
        self.bytes = 0;
        floor
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use triebench_kv::{KeyRange, Profile, ReadTx, Store};

    use super::*;
    use crate::grow_run::{run_grow, GrowPlan};

    /// Every entry of `table` in the store of `profile` in `dir`.
    fn entries(profile: Profile, dir: &std::path::Path, table: &str) -> BTreeSet<Vec<u8>> {
        let store = BackendSpec::new(profile, Some(dir.to_path_buf()))
            .and_then(|s| s.open_any(TABLES))
            .expect("open");
        let t = store.table(table).expect("table");
        let rows = store
            .reader()
            .and_then(|r| r.collect(t, &KeyRange::all()))
            .expect("scan");
        rows.into_iter().map(|(k, v)| [k, v].concat()).collect()
    }

    #[test]
    fn the_floor_stores_what_the_fill_stored_in_either_order() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let profile = Profile::Lmdb;
        let spec = |name: &str| {
            let dir = tmp.path().join(name);
            std::fs::create_dir_all(&dir).expect("dir");
            BackendSpec::new(profile, Some(dir)).expect("spec")
        };
        let plan = GrowPlan {
            spec: spec("store"),
            checkpoints: vec![600, 1_500],
            fill_batch: 400,
            commits: 5,
            reads: 5,
            seed: 3,
            write_back: false,
            fill_floor: Some(FloorSpecs {
                sorted: spec("sorted"),
                shuffled: Some(spec("shuffled")),
            }),
            compact_after_fill: false,
        };
        let curve = run_grow(&plan, None, &mut |_| {}, &mut |_| Ok(())).expect("grow");
        for c in &curve {
            let floor = c.fill_floor.as_ref().expect("a floor per checkpoint");
            assert!(floor.entries > 0 && floor.bytes > 0, "{floor:?}");
            assert!(c.fill_over_floor().is_some());
        }
        for table in TABLES {
            let sorted = entries(profile, &tmp.path().join("sorted"), table);
            let shuffled = entries(profile, &tmp.path().join("shuffled"), table);
            assert_eq!(
                sorted, shuffled,
                "{table}: the order changes nothing stored"
            );
        }
        // The floor holds the fill's nodes, tens per leaf. The store under test holds them less
        // those its checkpoints' commits replaced and then pruned (each 100-key commit rewrites
        // up to a fifteenth of a 1,500-leaf state's paths), plus those commits' own nodes.
        let main = TABLES[0];
        let floor = entries(profile, &tmp.path().join("sorted"), main);
        let store = entries(profile, &tmp.path().join("store"), main);
        let kept = floor.intersection(&store).count();
        // (26,075 of 47,470 at this seed; a floor of other keys would share none.)
        assert!(kept * 3 > floor.len(), "{kept} of {}", floor.len());
        assert!(floor.len() > 1_500 * 20, "{} nodes", floor.len());
    }
}
