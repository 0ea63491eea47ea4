//! A growth curve (`triebench grow`): fills a production-shaped state (the load generator's
//! 70-hex addresses and log-uniform values) in large batches and, at each checkpoint, measures
//! commits, warm and cold reads, size on disk, memory and the path-compression what-if.
//!
//! The fill commits `fill_batch` leaves at a time through [`MerkleTrie::commit`] (change log
//! included) and prunes each replaced root, as the load's preload does; what makes a small
//! batch slow is in `docs/grow.md`. Persistent profiles are closed at each checkpoint, their
//! files evicted from the page cache ([`crate::page_evict`]) and reopened for the cold reads;
//! in-memory ones (btree, redis, redis-uncached) stay open and have no cold reads.

use std::path::{Path, PathBuf};
use std::time::Instant;

use hdrhistogram::Histogram;
use triebench_kv::{BackendSpec, Profile, ReadTx, Store, StoreVisitor};
use triebench_merkle::{store_layout, MerkleTrie, StateChange, EMPTY_ROOT, TABLES};
use triebench_record::grow::{Checkpoint, CommitCost, FillCompaction, Latency};
use triebench_record::proc_stats;
use triebench_workloads::floor::RecordingStore;
use triebench_workloads::load::state::{address, value, StateShape};
use triebench_workloads::rng::XorShift64Star;

use crate::error::MeasureError;
use crate::fill_floor::{FillFloors, FloorSpecs};
use crate::grow_whatif::{what_if, Leaf};
use crate::mem_cgroup::MemCgroup;
use crate::page_evict::evict_dir;
use crate::phases;
use crate::proc_monitor::disk_usage;
use crate::timed::{elapsed_ns, histogram, latency};

/// Default leaves per fill commit.
pub const FILL_BATCH: u64 = 50_000;

/// What a growth run does.
#[derive(Debug, Clone)]
pub struct GrowPlan {
    /// The backend and its directory.
    pub spec: BackendSpec,
    /// Leaf counts to measure at, ascending.
    pub checkpoints: Vec<u64>,
    /// Leaves per fill commit.
    pub fill_batch: u64,
    /// 1-key commits timed per checkpoint (100-key commits: a quarter as many, at least 5).
    pub commits: u64,
    /// Reads timed per checkpoint, warm and cold each.
    pub reads: u64,
    /// Seed of addresses and values.
    pub seed: u64,
    /// After each fill commit, write the store's files back to the disk (`fdatasync` each):
    /// a bounded run's cgroup (v1) cannot write dirty page cache back to make room, so pages a
    /// store dirtied without syncing them (`lmdb-async`'s map, `sqlite-wal`'s WAL) would fill
    /// the bound until the kernel kills the run. Off for an unbounded run.
    pub write_back: bool,
    /// The fill's storage floor (`--fill-floor`): the specs of its stores, in the trie's
    /// order and shuffled (see [`crate::fill_floor`]).
    pub fill_floor: Option<FloorSpecs>,
    /// Compact the store after each stretch's fill, before its commits are timed
    /// (`--compact-after-fill`; LMDB profiles: [`BackendSpec::compact`]).
    pub compact_after_fill: bool,
}

/// Writes back every file under `dir` (`fdatasync`), so that the page cache they dirtied is
/// clean and can be reclaimed; files that cannot be opened are skipped.
fn write_back(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => write_back(&path),
            Ok(t) if t.is_file() => {
                if let Ok(file) = std::fs::File::open(&path) {
                    let _ = file.sync_data();
                }
            }
            _ => {}
        }
    }
}

/// The checkpoints 10^3, 10^4, ... below `max`, then `max` itself.
pub fn checkpoints(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut c = 1000;
    while c < max {
        out.push(c);
        c *= 10;
    }
    out.push(max);
    out
}

/// Whether the profile's data lives in files that survive closing the store.
pub fn has_cold_reads(profile: Profile) -> bool {
    profile.needs_dir()
        && !matches!(
            profile,
            Profile::Redis | Profile::RedisUncached | Profile::RedisReplicaWait
        )
}

/// The state the run carries between opens of the store.
struct GrowState {
    root: String,
    leaves: u64,
    value_lens: Vec<u32>,
    rng: XorShift64Star,
    /// A stretch filled with the store closed after it (to compact it), whose checkpoint the
    /// next open measures.
    filled: Option<Filled>,
}

/// What a stretch's fill measured, carried to its checkpoint.
struct Filled {
    /// Leaves before the stretch.
    from: u64,
    /// Seconds of fill, the floor's replays left out.
    secs: f64,
    /// The phases of the stretch's last commit, and its wall time, ns.
    phases: (phases::PhaseTotals, u64),
    /// The floor over the stretch, where one ran.
    floor: Option<triebench_record::grow::FillFloor>,
    /// The compaction after it, where one ran.
    compaction: Option<triebench_record::grow::FillCompaction>,
}

/// Value sizes of the growth fill (32 B to 1 KiB, log-uniform), from `seed`.
pub(crate) fn shape(seed: u64) -> StateShape {
    StateShape {
        size: 1,
        value_min: 32,
        value_max: 1024,
        seed,
    }
}

fn record(h: &mut Histogram<u64>, start: Instant) {
    h.saturating_record(elapsed_ns(start));
}

/// The leaves of the first `n` keys as the what-if takes them.
fn leaves(seed: u64, lens: &[u32]) -> Vec<Leaf> {
    lens.iter()
        .enumerate()
        .map(|(i, &len)| {
            let a = address(seed, i as u64);
            (hex::decode(a).unwrap_or_default(), len)
        })
        .collect()
}

/// Fills, commits and reads warm up to each of `targets` on one open store.
struct Segment<'a> {
    plan: &'a GrowPlan,
    state: &'a mut GrowState,
    targets: &'a [u64],
    progress: &'a mut dyn FnMut(&str),
    cgroup: Option<&'a MemCgroup>,
    floors: Option<&'a mut FillFloors>,
    /// Stop after the fill, leaving its figures in the state (the store is compacted next).
    fill_only: bool,
}

impl StoreVisitor for Segment<'_> {
    type Output = Result<Vec<Checkpoint>, MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let Segment {
            plan,
            state,
            targets,
            progress,
            cgroup,
            mut floors,
            fill_only,
        } = self;
        // The fill commits' writes are recorded for the floor (when asked for); writers opened
        // while recording is off pass every call through and copy nothing.
        let store = RecordingStore::new(store);
        store.set_recording(false);
        let mut pids = vec![std::process::id()];
        pids.extend(store.server_pid());
        let mut trie = if state.root == EMPTY_ROOT {
            MerkleTrie::new(&store)?
        } else {
            MerkleTrie::at_root(&store, &state.root)?
        };
        let shape = shape(plan.seed);
        let mut out = Vec::new();
        for &target in targets {
            // Fill, unless the stretch was filled before the store was closed and compacted.
            let filled = match state.filled.take() {
                Some(filled) => filled,
                None => fill_stretch(
                    plan,
                    state,
                    &store,
                    &mut trie,
                    target,
                    &mut *progress,
                    floors.as_deref_mut(),
                )?,
            };
            state.root = trie.root().to_string();
            if fill_only {
                state.filled = Some(filled);
                return Ok(Vec::new());
            }
            let Filled {
                from,
                secs: fill_secs,
                phases: fill_phases,
                floor: fill_floor,
                compaction,
            } = filled;

            // Commits: updates of random existing leaves, timed without pruning (as under
            // load); each replaced root is kept until the commits are measured, then pruned.
            let mut replaced = vec![trie.root().to_string()];
            let mut costs = Vec::new();
            for (keys, count) in [(1u64, plan.commits), (100, (plan.commits / 4).max(5))] {
                progress(&format!("{target} leaves: {count} commits of {keys} keys"));
                let mut h = histogram();
                let written_before = proc_stats::write_bytes(&pids);
                for _ in 0..count {
                    let batch: Vec<StateChange> = (0..keys)
                        .map(|_| {
                            let i = state.rng.next_u64() % state.leaves;
                            let v = value(&shape, &mut state.rng);
                            if let Some(len) = state.value_lens.get_mut(i as usize) {
                                *len = v.len() as u32;
                            }
                            StateChange::Set {
                                address: address(plan.seed, i),
                                value: v,
                            }
                        })
                        .collect();
                    let t = Instant::now();
                    let root = trie.commit(&batch)?;
                    record(&mut h, t);
                    trie.set_root(&root)?;
                    replaced.push(root);
                }
                let written = proc_stats::write_bytes(&pids).saturating_sub(written_before);
                costs.push(CommitCost {
                    keys,
                    latency: latency(&h),
                    write_bytes_per_commit: written as f64 / count.max(1) as f64,
                });
            }
            // Every root but the last, oldest first (pruning skips a root whose parent is
            // live). Left live, they would also stop the next fill's prunes, and the store
            // would keep every later fill commit's replaced nodes and change-log entries: the
            // history, not the state (1,023 bytes per leaf of change log at 10^6 before).
            replaced.pop();
            progress(&format!(
                "{target} leaves: pruning the commits' {} replaced roots",
                replaced.len()
            ));
            for root in &replaced {
                if root != EMPTY_ROOT {
                    MerkleTrie::prune(&store, root)?;
                }
            }
            state.root = trie.root().to_string();
            // Warm reads: each address read once untimed, then timed.
            progress(&format!("{target} leaves: {} warm reads", plan.reads));
            let picks: Vec<String> = (0..plan.reads)
                .map(|_| address(plan.seed, state.rng.next_u64() % state.leaves))
                .collect();
            for a in &picks {
                trie.get(a)?;
            }
            let mut h = histogram();
            for a in &picks {
                let t = Instant::now();
                let got = trie.get(a)?;
                record(&mut h, t);
                if got.is_none() {
                    return Err(MeasureError::File {
                        path: PathBuf::from(a),
                        reason: "a leaf the fill wrote reads as absent".into(),
                    });
                }
            }
            let read_warm = latency(&h);
            // `main`'s rows less the one that is not a node (the layout marker).
            let stored_nodes = store.reader().and_then(|rx| {
                let main = store.table(TABLES[0])?;
                rx.count(main)
            })?;
            let stored_nodes = stored_nodes.saturating_sub(store_layout::NON_NODE_ENTRIES);
            progress(&format!("{target} leaves: where the store's bytes go"));
            let space = store.space()?;
            progress(&format!("{target} leaves: what-if over the state"));
            let mut leafs = leaves(plan.seed, &state.value_lens);
            let w = what_if(&mut leafs);
            drop(leafs);
            let disk = plan.spec.dir.as_deref().map_or(0, disk_usage);
            let [commit_1, commit_100] = [costs[0], costs[1]];
            out.push(Checkpoint {
                leaves: state.leaves,
                fill_leaves_per_sec: (state.leaves - from) as f64 / fill_secs.max(1e-9),
                fill_secs,
                commit_1,
                commit_100,
                read_warm,
                read_cold: None,
                disk_bytes: disk,
                disk_bytes_per_leaf: disk as f64 / state.leaves.max(1) as f64,
                stored_nodes,
                nodes_per_leaf: w.nodes as f64 / state.leaves.max(1) as f64,
                rss_bytes: proc_stats::rss_bytes(&pids),
                what_if: w,
                memory: cgroup.map(MemCgroup::bound),
                fill_phases: fill_phases.0.ns_by_name(),
                fill_phases_wall_ns: fill_phases.1,
                space,
                fill_floor,
                compaction,
            });
        }
        Ok(out)
    }
}

/// Fills the open store from `state.leaves` to `target` in `fill_batch`-leaf commits, each
/// replaced root pruned, each commit's writes replayed onto the floor's stores where they run.
fn fill_stretch<S: Store>(
    plan: &GrowPlan,
    state: &mut GrowState,
    store: &RecordingStore<S>,
    trie: &mut MerkleTrie<'_, RecordingStore<S>>,
    target: u64,
    progress: &mut dyn FnMut(&str),
    mut floors: Option<&mut FillFloors>,
) -> Result<Filled, MeasureError> {
    let shape = shape(plan.seed);
    let from = state.leaves;
    let mut fill_phases = (phases::PhaseTotals::default(), 0);
    let start = Instant::now();
    // The floor's replays run between fill commits; their time is not the fill's.
    let mut floor_time = std::time::Duration::ZERO;
    while state.leaves < target {
        let n = (target - state.leaves).min(plan.fill_batch.max(1));
        let batch: Vec<StateChange> = (state.leaves..state.leaves + n)
            .map(|i| {
                let v = value(&shape, &mut state.rng);
                state.value_lens.push(v.len() as u32);
                StateChange::Set {
                    address: address(plan.seed, i),
                    value: v,
                }
            })
            .collect();
        store.set_recording(floors.is_some());
        // The replaced root is pruned in a transaction of its own. In the commit's
        // (`MerkleTrie::commit_and_prune`) the fill to 10^6 on the disk was no faster
        // (sqlite-wal-full 497 s against 488, lmdb 282 against 287), and lmdb's store ended
        // with 7.7 KB of free pages per leaf against 4.2: its prune's page copies could no
        // longer reuse the pages the commit had just freed (findings/grow.md).
        let commit = || {
            let root = trie.commit(&batch)?;
            if trie.root() != EMPTY_ROOT {
                MerkleTrie::prune(store, trie.root())?;
            }
            Ok::<_, MeasureError>(root)
        };
        // The stretch's last commit runs with the phase collector listening: its
        // phases say how near the fill runs to the backend's own cost of storing the
        // same nodes (the others run without it, which would cost them ~10%).
        let stored = if state.leaves + n >= target {
            let (stored, totals, wall_ns) = phases::measure(commit);
            fill_phases = (totals, wall_ns);
            stored
        } else {
            commit()
        };
        store.set_recording(false);
        let recorded = store.take();
        let stored = stored?;
        if let Some(floors) = floors.as_deref_mut() {
            let replayed = Instant::now();
            floors.replay(recorded)?;
            floor_time += replayed.elapsed();
        }
        trie.set_root(&stored)?;
        if plan.write_back {
            if let Some(dir) = plan.spec.dir.as_deref() {
                write_back(dir);
            }
        }
        state.leaves += n;
        let secs = start.elapsed().saturating_sub(floor_time).as_secs_f64();
        progress(&format!(
            "fill {} / {target} leaves, {:.0} leaves/s",
            state.leaves,
            (state.leaves - from) as f64 / secs.max(1e-9)
        ));
    }
    let fill_secs = start.elapsed().saturating_sub(floor_time).as_secs_f64();
    let fill_floor = floors.map(FillFloors::take_stretch);
    Ok(Filled {
        from,
        secs: fill_secs,
        phases: fill_phases,
        floor: fill_floor,
        compaction: None,
    })
}

/// Compacts the closed store after the stretch to `target` was filled, and keeps what it did
/// with the stretch's fill figures.
fn compact_stretch(
    plan: &GrowPlan,
    state: &mut GrowState,
    target: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<(), MeasureError> {
    progress(&format!("{target} leaves: compacting the store"));
    let start = Instant::now();
    let done = plan.spec.compact(TABLES)?;
    let compaction = FillCompaction {
        bytes_before: done.bytes_before,
        bytes_after: done.bytes_after,
        secs: start.elapsed().as_secs_f64(),
    };
    progress(&format!(
        "{target} leaves: compacted {} MiB to {} MiB in {:.1} s",
        done.bytes_before >> 20,
        done.bytes_after >> 20,
        compaction.secs
    ));
    if let Some(filled) = state.filled.as_mut() {
        filled.compaction = Some(compaction);
    }
    Ok(())
}

/// Reads random existing leaves on a freshly opened store.
struct ColdReads<'a> {
    plan: &'a GrowPlan,
    state: &'a mut GrowState,
}

impl StoreVisitor for ColdReads<'_> {
    type Output = Result<Latency, MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let trie = MerkleTrie::at_root(&store, &self.state.root)?;
        let mut h = histogram();
        for _ in 0..self.plan.reads {
            let a = address(
                self.plan.seed,
                self.state.rng.next_u64() % self.state.leaves.max(1),
            );
            let t = Instant::now();
            trie.get(&a)?;
            record(&mut h, t);
        }
        Ok(latency(&h))
    }
}

/// Runs the curve; `on_checkpoint` sees each checkpoint as soon as it is measured (to print
/// and save it), `progress` gets a line now and then.
pub fn run_grow(
    plan: &GrowPlan,
    cgroup: Option<&MemCgroup>,
    progress: &mut dyn FnMut(&str),
    on_checkpoint: &mut dyn FnMut(&Checkpoint) -> Result<(), MeasureError>,
) -> Result<Vec<Checkpoint>, MeasureError> {
    let mut state = GrowState {
        root: EMPTY_ROOT.to_string(),
        leaves: 0,
        value_lens: Vec::new(),
        rng: XorShift64Star::new(plan.seed ^ 0x6709),
        filled: None,
    };
    let mut floors = plan
        .fill_floor
        .as_ref()
        .map(|specs| FillFloors::open(specs, plan.seed))
        .transpose()?;
    let mut all = Vec::new();
    if !has_cold_reads(plan.spec.profile) {
        let mut forward = |c: &Checkpoint| on_checkpoint(c);
        let segment = Segment {
            plan,
            state: &mut state,
            targets: &plan.checkpoints,
            progress,
            cgroup,
            floors: floors.as_mut(),
            fill_only: false,
        };
        let done = plan.spec.open(TABLES, segment)??;
        for c in &done {
            forward(c)?;
        }
        return Ok(done);
    }
    // With --compact-after-fill a stretch is filled on one open of the store, compacted with
    // the store closed, and measured on the next open.
    let opens: &[bool] = if plan.compact_after_fill {
        &[true, false]
    } else {
        &[false]
    };
    for &target in &plan.checkpoints {
        let mut done = Vec::new();
        for &fill_only in opens {
            let segment = Segment {
                plan,
                state: &mut state,
                targets: std::slice::from_ref(&target),
                progress,
                cgroup,
                floors: floors.as_mut(),
                fill_only,
            };
            done = plan.spec.open(TABLES, segment)??;
            if fill_only {
                compact_stretch(plan, &mut state, target, progress)?;
            }
        }
        if let Some(dir) = plan.spec.dir.as_deref() {
            let evicted = evict_dir(dir);
            progress(&format!(
                "{target} leaves: evicted {} files ({} MiB); {} cold reads",
                evicted.files,
                evicted.bytes >> 20,
                plan.reads
            ));
        }
        let cold = plan.spec.open(
            TABLES,
            ColdReads {
                plan,
                state: &mut state,
            },
        )??;
        for c in &mut done {
            c.read_cold = Some(cold);
            if let Some(g) = cgroup {
                c.memory = Some(g.bound());
            }
            on_checkpoint(c)?;
        }
        all.extend(done);
    }
    Ok(all)
}

/// The directory's path as the record shows it.
pub fn dir_text(dir: Option<&Path>) -> String {
    dir.map_or_else(String::new, |d| d.display().to_string())
}
