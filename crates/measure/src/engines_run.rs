//! Authenticated state engines side by side: the same workloads on each engine ×
//! kv profile, in one directory, into an [`EngineResult`] each.
//!
//! Per engine and profile, on fresh stores under `<dir>/<engine>-<profile>/`:
//!
//! 1. **Check**: the engine runs beside its reference on a store of its own: first Transact's
//!    scenarios that apply to every engine ([`crate::engine_scenarios`]: reads checked against
//!    a model, each scenario timed), then ([`triebench_engines::check_roots`]) Transact's
//!    `update` keys in 10 batches and its 50/50 batch, then four fill batches. A wrong root or
//!    read is an error ([`MeasureError::Engine`], [`MeasureError::EngineScenario`]), and
//!    nothing is measured.
//! 2. **update**: Transact's `update` workload ([`triebench_workloads::update_commits`]),
//!    1001 commits, each timed.
//! 3. **Fill**: `fill_leaves` new leaves (the growth curve's addresses and value sizes) in
//!    commits of `fill_batch`, each timed; then every version but the last is pruned.
//! 4. Size on disk, nodes (rows of the engine's node table), warm reads, proofs (made,
//!    then checked) of present leaves.
//! 5. **Cold reads**: the store closed, its files evicted from the page cache
//!    ([`crate::page_evict`]), reopened and read at the final root, where the data lives in
//!    files and the engine can be reopened at a root.
//!
//! Engines are named in one list, [`EngineName`]: a new engine is a variant, its tables and
//! one arm in [`with_engine`] (and in `cold_reads` if it can be reopened); the measuring itself
//! is generic over [`Engine`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use hdrhistogram::Histogram;
use sha2::Sha256;
use triebench_engines::{
    check_roots, Engine, EngineError, JmtEngine, KvTreeStore, MockJmt, ModelMpt, ModelNomt,
    ModelTrie, MptEngine, NomtEngine, NomtOptions, Root, TransactOnStore, TrieEngine, JMT_TABLES,
    MPT_TABLES, TRANSACT_TABLES,
};
use triebench_kv::{BackendSpec, Profile, ReadTx, Store, StoreVisitor};
use triebench_merkle::{StateChange, TABLES};
use triebench_record::engines::{
    CommitFigures, EngineResult, FieldFigures, ProofFigures, ScenarioFigures,
};
use triebench_record::grow::Latency;
use triebench_record::proc_stats;
use triebench_record::space::StoreSpace;
use triebench_workloads::field::{FieldWorkload, Phase};
use triebench_workloads::load::state::{address, value};
use triebench_workloads::rng::XorShift64Star;
use triebench_workloads::{update_address, update_commits};

use crate::engine_scenarios::{run_scenarios, KnownFault};
use crate::error::MeasureError;
use crate::grow_run::{has_cold_reads, shape};
use crate::page_evict::{self, evict_dir};
use crate::proc_monitor::disk_usage;
use crate::timed::{elapsed_ns, histogram, latency};

/// The engines `--engines` takes, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineName {
    /// triebench's Transact-compatible Merkle-Radix trie ([`TrieEngine`]).
    Trie,
    /// A Jellyfish Merkle tree on the kv store ([`JmtEngine`] over [`KvTreeStore`]).
    Jmt,
    /// Ethereum's Merkle Patricia trie on the kv store ([`MptEngine`]).
    Mpt,
    /// Hyperledger Transact 0.4.7's own `MerkleState` on the kv store ([`TransactOnStore`]):
    /// the format the trie reproduces, as Transact's code runs it.
    Transact,
    /// NOMT 1.0.5 on files of its own in the directory ([`NomtEngine`]): on no kv profile.
    Nomt,
}

/// Every engine, in the order a run takes them by default.
pub const ENGINES: [EngineName; 5] = [
    EngineName::Trie,
    EngineName::Jmt,
    EngineName::Mpt,
    EngineName::Transact,
    EngineName::Nomt,
];

/// The profile an engine with files of its own ([`EngineName::own_files`]) is recorded under.
pub const OWN_FILES: &str = "own files";

/// An `--engines` name that is not one of [`ENGINES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine `{0}`: the engines are {list}", list = names())]
pub struct UnknownEngine(pub String);

/// The engines' names, comma-separated.
pub fn names() -> String {
    ENGINES.map(EngineName::name).join(", ")
}

impl EngineName {
    /// The name `--engines` and the record use.
    pub fn name(self) -> &'static str {
        match self {
            EngineName::Trie => "trie",
            EngineName::Jmt => "jmt",
            EngineName::Mpt => "mpt",
            EngineName::Transact => "transact",
            EngineName::Nomt => "nomt",
        }
    }

    /// The tables its store is opened with.
    pub fn tables(self) -> &'static [&'static str] {
        match self {
            EngineName::Trie => TABLES,
            EngineName::Jmt => JMT_TABLES,
            EngineName::Mpt => MPT_TABLES,
            EngineName::Transact => TRANSACT_TABLES,
            EngineName::Nomt => &[],
        }
    }

    /// The table that holds one row per stored node, where the engine has one.
    pub fn node_table(self) -> Option<&'static str> {
        match self {
            EngineName::Trie => TABLES.first().copied(),
            EngineName::Jmt => JMT_TABLES.first().copied(),
            EngineName::Mpt => MPT_TABLES.first().copied(),
            EngineName::Transact => TRANSACT_TABLES.first().copied(),
            EngineName::Nomt => None,
        }
    }

    /// Rows of [`node_table`](Self::node_table) that are not nodes: the trie's layout marker
    /// (see [`triebench_merkle::store_layout`]).
    pub fn non_node_rows(self) -> u64 {
        match self {
            EngineName::Trie => triebench_merkle::store_layout::NON_NODE_ENTRIES,
            _ => 0,
        }
    }

    /// Whether the engine keeps its data in files of its own in the directory rather than on a
    /// kv profile (NOMT): it runs once per directory, recorded under [`OWN_FILES`].
    pub fn own_files(self) -> bool {
        matches!(self, EngineName::Nomt)
    }

    /// Transact's scenarios the engine is known to get wrong, skipped with the reason.
    pub fn known_faults(self) -> &'static [KnownFault] {
        match self {
            EngineName::Transact => &[(
                "update_same_address_space",
                "Transact 0.4.7 leaves an empty node where one batch sets and deletes an address \
                 with no sibling (fault 4 of docs/findings/transact.md), so its root is not the \
                 mapping's",
            )],
            _ => &[],
        }
    }

    /// What its roots are checked against.
    pub fn reference(self) -> &'static str {
        match self {
            EngineName::Trie => "the trie's reference model (roots from scratch)",
            EngineName::Jmt => "JMT on its own in-memory mock store",
            EngineName::Mpt => {
                "the MPT's reference model (roots from scratch; the engine passes Ethereum's \
                 published trie vectors in its tests)"
            }
            EngineName::Transact => {
                "the trie's reference model (roots from scratch; Transact's known faults are \
                 outside these batches)"
            }
            EngineName::Nomt => "NOMT's model (roots built from scratch by nomt-core)",
        }
    }
}

impl fmt::Display for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EngineName {
    type Err = UnknownEngine;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ENGINES
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| UnknownEngine(s.to_string()))
    }
}

/// What is done with an engine built on a store: given the engine, how to reach the store
/// underneath (its counts and space), and the engine's reference.
pub trait EngineVisitor<S: Store> {
    /// What the visit returns.
    type Output;

    /// Runs on `engine` (over the store `store_of` returns) beside a fresh `reference`.
    fn visit<E: Engine, R: Engine>(
        self,
        engine: E,
        store_of: fn(&E) -> &S,
        reference: R,
    ) -> Result<Self::Output, MeasureError>;
}

/// Builds engine `name` on `store` (opened with [`EngineName::tables`]) and its reference,
/// and hands both to `visitor`: the one place an engine's name becomes its type.
pub fn with_engine<S: Store + 'static, V: EngineVisitor<S>>(
    name: EngineName,
    store: S,
    visitor: V,
) -> Result<V::Output, MeasureError> {
    match name {
        EngineName::Trie => visitor.visit(
            TrieEngine::new(store)?,
            |e: &TrieEngine<S>| e.state().store().as_ref(),
            ModelTrie::default(),
        ),
        EngineName::Jmt => visitor.visit(
            JmtEngine::new(KvTreeStore::new(store)?),
            |e: &JmtEngine<KvTreeStore<S>>| e.store().store(),
            MockJmt::default(),
        ),
        EngineName::Mpt => visitor.visit(
            MptEngine::new(store)?,
            |e: &MptEngine<S>| e.store(),
            ModelMpt::default(),
        ),
        EngineName::Transact => visitor.visit(
            TransactOnStore::new(store)?,
            |e: &TransactOnStore<S>| e.store(),
            ModelTrie::default(),
        ),
        EngineName::Nomt => Err(MeasureError::Usage(
            "nomt keeps its own files and runs on no kv profile (run_own_engine)".into(),
        )),
    }
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct EnginesPlan {
    /// Leaves the fill adds after `update`.
    pub fill_leaves: u64,
    /// Leaves per fill commit.
    pub fill_batch: u64,
    /// Warm reads, cold reads and proofs timed, each.
    pub reads: u64,
    /// Seed of the fill and the picks (and of the field workloads).
    pub seed: u64,
    /// The field's workloads to run after the rest, each on a fresh store.
    pub field: Vec<FieldWorkload>,
    /// Their scale (`triebench field --scale`; 0 is taken as 1).
    pub field_scale: u64,
}

/// Seconds and rates of a run of timed commits.
#[derive(Debug)]
struct Timed {
    histogram: Histogram<u64>,
    total_ns: u64,
    leaves: u64,
}

impl Timed {
    fn new() -> Self {
        Timed {
            histogram: histogram(),
            total_ns: 0,
            leaves: 0,
        }
    }

    fn figures(&self, written: u64) -> CommitFigures {
        let commits = self.histogram.len();
        let total_s = self.total_ns as f64 / 1e9;
        CommitFigures {
            commits,
            leaves: self.leaves,
            total_s,
            commits_per_s: if total_s > 0.0 {
                commits as f64 / total_s
            } else {
                0.0
            },
            commit: latency(&self.histogram),
            write_bytes_per_commit: written as f64 / commits.max(1) as f64,
        }
    }
}

/// The fill's batches: leaves `0..leaves` of the growth curve's address space, `batch` each.
fn fill_batches(seed: u64, leaves: u64, batch: u64) -> Vec<Vec<StateChange>> {
    let shape = shape(seed);
    let mut rng = XorShift64Star::new(seed ^ 0x6709);
    let batch = batch.max(1);
    (0..leaves)
        .step_by(batch as usize)
        .map(|from| {
            (from..(from + batch).min(leaves))
                .map(|i| StateChange::Set {
                    address: address(seed, i),
                    value: value(&shape, &mut rng),
                })
                .collect()
        })
        .collect()
}

/// The batches an engine is checked on: `update`'s keys in 10 commits and its 50/50 batch,
/// then four fill batches of 250 leaves (addresses apart from the measured fill's).
pub fn check_batches(seed: u64) -> Vec<Vec<StateChange>> {
    let update = update_commits();
    let (singles, last) = update.split_at(update.len().saturating_sub(1));
    let mut out: Vec<Vec<StateChange>> = singles.chunks(100).map(|c| c.concat()).collect();
    out.extend(last.iter().cloned());
    out.extend(fill_batches(seed ^ 0x636b, 1000, 250));
    out
}

/// Leaves `update` leaves present: its first 500 keys (the batch deletes only upper ones).
const UPDATE_PRESENT: u32 = 500;
/// Leaves in the state after `update`: 1000 set, 50 deleted.
const UPDATE_LEAVES: u64 = 950;

/// Runs the check on a fresh store: Transact's scenarios (less the engine's known faults),
/// then `batches`.
struct Check<'a> {
    batches: &'a [Vec<StateChange>],
    known_faults: &'static [KnownFault],
}

/// What the check did: batches checked by root, and the scenarios run.
#[derive(Debug)]
struct Checked {
    batches: u64,
    scenarios: Vec<ScenarioFigures>,
}

impl<S: Store> EngineVisitor<S> for Check<'_> {
    type Output = Checked;

    fn visit<E: Engine, R: Engine>(
        self,
        mut engine: E,
        _: fn(&E) -> &S,
        mut reference: R,
    ) -> Result<Checked, MeasureError> {
        self.run(&mut engine, &mut reference)
    }
}

impl Check<'_> {
    /// The check on any engine beside its reference, both fresh.
    fn run<E: Engine, R: Engine>(
        self,
        engine: &mut E,
        reference: &mut R,
    ) -> Result<Checked, MeasureError> {
        let scenarios = run_scenarios(engine, reference, &Default::default(), self.known_faults)?;
        let batches = check_roots(engine, reference, self.batches)?.len() as u64;
        Ok(Checked { batches, scenarios })
    }

    /// The progress line that says what is checked against what.
    fn line(&self, name: EngineName) -> String {
        format!(
            "checking {} of Transact's scenarios and {} batches against {}",
            crate::engine_scenarios::ENGINE_SCENARIOS.len(),
            self.batches.len(),
            name.reference()
        )
    }
}

/// What a measured store hands to the cold reads.
struct Measured {
    result: EngineResult,
    root: Root,
    /// Commits applied (each wrote): JMT's latest version is this minus one.
    commits: u64,
    picks: Vec<String>,
}

/// Measures one engine on one open store.
struct Measure<'a> {
    name: EngineName,
    plan: &'a EnginesPlan,
    dir: Option<&'a Path>,
    progress: &'a mut dyn FnMut(&str),
}

impl<S: Store> EngineVisitor<S> for Measure<'_> {
    type Output = Measured;

    fn visit<E: Engine, R: Engine>(
        self,
        mut engine: E,
        store_of: fn(&E) -> &S,
        _: R,
    ) -> Result<Measured, MeasureError> {
        let pids = writers(store_of(&engine));
        let name = self.name;
        self.run(&mut engine, &pids, |engine| {
            let store = store_of(engine);
            let stored_nodes = match name.node_table() {
                Some(t) => Some(
                    store
                        .reader()?
                        .count(store.table(t)?)?
                        .saturating_sub(name.non_node_rows()),
                ),
                None => None,
            };
            Ok((stored_nodes, store.space()?))
        })
    }
}

impl Measure<'_> {
    /// The measurement itself, on any engine: `pids` are the processes whose writes count,
    /// `storage` reads the node rows and the store's space once the state is final.
    fn run<E: Engine>(
        self,
        engine: &mut E,
        pids: &[u32],
        storage: impl FnOnce(&E) -> Result<(Option<u64>, Option<StoreSpace>), MeasureError>,
    ) -> Result<Measured, MeasureError> {
        let Measure {
            name,
            plan,
            dir,
            progress,
        } = self;
        let mut commits = 0u64;
        let mut run = |engine: &mut E, batches: &[Vec<StateChange>]| {
            commits += batches.len() as u64;
            timed_commits(engine, pids, batches)
        };
        progress("update: 1001 commits");
        let update = run(engine, &update_commits())?;
        let fill = if plan.fill_leaves > 0 {
            progress(&format!(
                "fill: {} leaves in commits of {}",
                plan.fill_leaves, plan.fill_batch
            ));
            run(
                engine,
                &fill_batches(plan.seed, plan.fill_leaves, plan.fill_batch),
            )?
        } else {
            CommitFigures::default()
        };
        let root = engine.root();
        progress("pruning every older version");
        engine.prune_before(&root)?;
        let leaves = UPDATE_LEAVES + plan.fill_leaves;
        let (stored_nodes, space) = storage(engine)?;
        let disk_bytes = dir.map_or(0, disk_usage);
        // Picks: present leaves, from the fill when there is one.
        let mut rng = XorShift64Star::new(plan.seed ^ 0x7265_6164);
        let picks: Vec<String> = (0..plan.reads)
            .map(|_| {
                if plan.fill_leaves > 0 {
                    address(plan.seed, rng.next_u64() % plan.fill_leaves)
                } else {
                    update_address((rng.next_u64() % u64::from(UPDATE_PRESENT)) as u32)
                }
            })
            .collect();
        progress(&format!("{} warm reads and proofs", plan.reads));
        let mut values = Vec::with_capacity(picks.len());
        for a in &picks {
            values.push(present(engine.get(&root, a)?, a, name)?);
        }
        let mut h = histogram();
        for a in &picks {
            let t = Instant::now();
            let got = engine.get(&root, a)?;
            h.saturating_record(elapsed_ns(t));
            present(got, a, name)?;
        }
        let read_warm = latency(&h);
        let proof = proofs(&*engine, &root, &picks, &values)?;
        Ok(Measured {
            result: EngineResult {
                engine: name.name().to_string(),
                reference: name.reference().to_string(),
                update,
                fill,
                leaves,
                final_root: root.to_string(),
                disk_bytes,
                disk_bytes_per_leaf: disk_bytes as f64 / leaves as f64,
                space,
                stored_nodes,
                nodes_per_leaf: stored_nodes.map(|n| n as f64 / leaves as f64),
                read_warm,
                proof,
                ..EngineResult::default()
            },
            root,
            commits,
            picks,
        })
    }
}

/// The processes whose writes a measurement on `store` counts: this one, and the store's
/// server when it runs one.
fn writers<S: Store>(store: &S) -> Vec<u32> {
    let mut pids = vec![std::process::id()];
    pids.extend(store.server_pid());
    pids
}

/// Applies each batch to `engine`, timed, with the bytes `pids` wrote meanwhile.
fn timed_commits<E: Engine>(
    engine: &mut E,
    pids: &[u32],
    batches: &[Vec<StateChange>],
) -> Result<CommitFigures, MeasureError> {
    let mut timed = Timed::new();
    let before = proc_stats::write_bytes(pids);
    for batch in batches {
        let t = Instant::now();
        engine.apply(batch)?;
        let ns = elapsed_ns(t);
        timed.histogram.saturating_record(ns);
        timed.total_ns = timed.total_ns.saturating_add(ns);
        timed.leaves += batch.len() as u64;
    }
    let written = proc_stats::write_bytes(pids).saturating_sub(before);
    Ok(timed.figures(written))
}

/// Runs one field workload on a fresh store: setup commits untimed, then the timed ones.
struct Field<'a> {
    workload: FieldWorkload,
    scale: u64,
    seed: u64,
    progress: &'a mut dyn FnMut(&str),
}

impl<S: Store> EngineVisitor<S> for Field<'_> {
    type Output = FieldFigures;

    fn visit<E: Engine, R: Engine>(
        self,
        mut engine: E,
        store_of: fn(&E) -> &S,
        _: R,
    ) -> Result<FieldFigures, MeasureError> {
        let pids = writers(store_of(&engine));
        self.run(&mut engine, &pids)
    }
}

impl Field<'_> {
    /// The workload on any engine; `pids` are the processes whose writes count.
    fn run<E: Engine>(self, engine: &mut E, pids: &[u32]) -> Result<FieldFigures, MeasureError> {
        let mut setup_commits = 0u64;
        let mut timed = Vec::new();
        for (phase, commit) in self.workload.commits(self.scale, self.seed) {
            if commit.leaves() == 0 {
                // A batch of reads (Merk's): engines time commits only; `triebench field`
                // times the reads.
                continue;
            }
            match phase {
                Phase::Setup => {
                    engine.apply(&commit.changes())?;
                    setup_commits += 1;
                }
                Phase::Timed => timed.push(commit.changes()),
            }
        }
        (self.progress)(&format!(
            "{}: {setup_commits} setup commits done; {} timed",
            self.workload,
            timed.len()
        ));
        let timed = timed_commits(engine, pids, &timed)?;
        Ok(FieldFigures {
            workload: self.workload.name().to_string(),
            scale: self.scale.max(1),
            setup_commits,
            timed,
        })
    }
}

impl VisitAny for Field<'_> {
    type Out = FieldFigures;

    fn run<S: Store + 'static>(
        self,
        name: EngineName,
        store: S,
    ) -> Result<FieldFigures, MeasureError> {
        with_engine(name, store, self)
    }
}

/// A read of a leaf the run wrote: absent is an error (the engine lost it).
fn present(
    got: Option<Vec<u8>>,
    address: &str,
    engine: EngineName,
) -> Result<Vec<u8>, MeasureError> {
    got.ok_or_else(|| {
        MeasureError::Usage(format!(
            "{engine}: leaf {address}, written by the run, reads as absent"
        ))
    })
}

/// Makes and checks a proof of each pick, timed; `None` for an engine that makes none.
fn proofs<E: Engine>(
    engine: &E,
    root: &Root,
    picks: &[String],
    values: &[Vec<u8>],
) -> Result<Option<ProofFigures>, MeasureError> {
    let (mut prove, mut verify) = (histogram(), histogram());
    let (mut total, mut max) = (0u64, 0u64);
    for (a, v) in picks.iter().zip(values) {
        let t = Instant::now();
        let Some(proof) = engine.prove(root, a)? else {
            return Ok(None);
        };
        prove.saturating_record(elapsed_ns(t));
        let t = Instant::now();
        engine.verify(root, a, Some(v), &proof)?;
        verify.saturating_record(elapsed_ns(t));
        total += proof.len() as u64;
        max = max.max(proof.len() as u64);
    }
    if picks.is_empty() {
        return Ok(None);
    }
    Ok(Some(ProofFigures {
        count: picks.len() as u64,
        mean_bytes: total as f64 / picks.len() as f64,
        max_bytes: max,
        prove: latency(&prove),
        verify: latency(&verify),
    }))
}

/// Reads on a freshly opened store, at the final root.
struct ColdReads<'a> {
    name: EngineName,
    root: &'a Root,
    commits: u64,
    picks: &'a [String],
}

impl StoreVisitor for ColdReads<'_> {
    type Output = Result<Option<Latency>, MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let mut h = histogram();
        match self.name {
            EngineName::Trie => {
                // The trie reads any root it holds: a fresh engine over the store reads it.
                let trie = TrieEngine::new(store)?;
                read_each(&trie, self.root, self.picks, self.name, &mut h)?;
            }
            EngineName::Mpt => {
                // So does the MPT (its nodes are stored by hash).
                let mpt = MptEngine::new(store)?;
                read_each(&mpt, self.root, self.picks, self.name, &mut h)?;
            }
            EngineName::Transact => {
                // Transact reads a root its database holds, as a restarted node does.
                let transact = TransactOnStore::reopen(store, self.root)?;
                read_each(&transact, self.root, self.picks, self.name, &mut h)?;
            }
            // On no kv store: run_own_engine reopens its files.
            EngineName::Nomt => return Ok(None),
            EngineName::Jmt => {
                // The engine keeps its versions in memory; JMT itself reads a version from the
                // store: the latest, the one each commit wrote counting from 0.
                let Some(version) = self.commits.checked_sub(1) else {
                    return Ok(None);
                };
                let tree = KvTreeStore::new(store)?;
                for a in self.picks {
                    let key = hex::decode(a)
                        .map_err(|e| MeasureError::Usage(format!("address {a} is not hex: {e}")))?;
                    let t = Instant::now();
                    let reader = tree.tree_reader()?;
                    let got = jmt::JellyfishMerkleTree::<_, Sha256>::new(&reader)
                        .get(jmt::KeyHash::with::<Sha256>(key), version)
                        .map_err(|e| MeasureError::Usage(format!("jmt: {e:#}")))?;
                    h.saturating_record(elapsed_ns(t));
                    present(got, a, self.name)?;
                }
            }
        }
        Ok(Some(latency(&h)))
    }
}

/// Reads every address of `picks` at `root` on `engine`, each read's time into `h`.
fn read_each<E: Engine>(
    engine: &E,
    root: &Root,
    picks: &[String],
    name: EngineName,
    h: &mut Histogram<u64>,
) -> Result<(), MeasureError> {
    for a in picks {
        let t = Instant::now();
        let got = engine.get(root, a)?;
        h.saturating_record(elapsed_ns(t));
        present(got, a, name)?;
    }
    Ok(())
}

/// Opens `engine`'s store of `profile` (in `dir` when the profile keeps files) and hands it to
/// `visitor`.
struct Open<V> {
    name: EngineName,
    visitor: V,
}

impl<V: VisitAny> StoreVisitor for Open<V> {
    type Output = Result<V::Out, MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        self.visitor.run(self.name, store)
    }
}

/// A visitor that can run on any store type (the check, the measurement).
pub trait VisitAny {
    /// What it returns.
    type Out;
    /// Builds the engine on `store` and runs.
    fn run<S: Store + 'static>(self, name: EngineName, store: S)
        -> Result<Self::Out, MeasureError>;
}

impl VisitAny for Check<'_> {
    type Out = Checked;

    fn run<S: Store + 'static>(self, name: EngineName, store: S) -> Result<Checked, MeasureError> {
        with_engine(name, store, self)
    }
}

impl VisitAny for Measure<'_> {
    type Out = Measured;

    fn run<S: Store + 'static>(self, name: EngineName, store: S) -> Result<Measured, MeasureError> {
        with_engine(name, store, self)
    }
}

/// A fresh directory for one store, `<dir>/<engine>-<profile>/<what>` (removed first if it is
/// there), or `None` for a profile that keeps no files.
fn store_dir(
    dir: Option<&Path>,
    name: EngineName,
    profile: Profile,
    what: &str,
) -> Result<Option<PathBuf>, MeasureError> {
    let Some(dir) = dir.filter(|_| profile.needs_dir()) else {
        return Ok(None);
    };
    fresh_dir(dir.join(format!("{name}-{profile}")).join(what)).map(Some)
}

/// `path` made anew for a store (removed first if it is there: an earlier run's).
fn fresh_dir(path: PathBuf) -> Result<PathBuf, MeasureError> {
    if path.exists() {
        std::fs::remove_dir_all(&path).map_err(|source| MeasureError::Io {
            what: "removing an earlier store",
            dir: path.clone(),
            source,
        })?;
    }
    std::fs::create_dir_all(&path).map_err(|source| MeasureError::Io {
        what: "making a store directory",
        dir: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Removes `<dir>/<engine>-<profile>/`, the stores one engine and profile used.
fn remove_stores(dir: Option<&Path>, name: EngineName, profile: Profile) {
    if let Some(dir) = dir {
        let _ = std::fs::remove_dir_all(dir.join(format!("{name}-{profile}")));
    }
}

/// How [`run_engine`] makes its reads cold, as the record states it.
pub const COLD_METHOD: &str = page_evict::METHOD;

/// Checks, then measures, engine `name` on `profile`, its stores under `dir` (a profile that
/// keeps files needs one); `progress` gets a line now and then. The stores are removed after.
pub fn run_engine(
    name: EngineName,
    profile: Profile,
    dir: Option<&Path>,
    plan: &EnginesPlan,
    progress: &mut dyn FnMut(&str),
) -> Result<EngineResult, MeasureError> {
    if profile.needs_dir() && dir.is_none() {
        return Err(MeasureError::Usage(format!(
            "{profile} keeps its data in files: give --dir"
        )));
    }
    let outcome = measure_engine(name, profile, dir, plan, progress);
    remove_stores(dir, name, profile);
    outcome
}

/// A fresh directory `<dir>/<engine>/<what>` for an engine with files of its own (removed
/// first if it is there).
fn own_dir(dir: &Path, name: EngineName, what: &str) -> Result<PathBuf, MeasureError> {
    fresh_dir(dir.join(name.name()).join(what))
}

/// Checks, then measures, an engine with files of its own ([`EngineName::own_files`]: NOMT)
/// in `dir/<engine>/`, as [`run_engine`] does a kv engine (the same check, workloads, reads
/// and field workloads; cold reads on its files reopened), recorded under [`OWN_FILES`]. Its
/// directories are removed after. An engine this system cannot run is
/// [`EngineError::Unavailable`] (inside [`MeasureError::Engine`]), for the caller to skip.
pub fn run_own_engine(
    name: EngineName,
    dir: &Path,
    plan: &EnginesPlan,
    progress: &mut dyn FnMut(&str),
) -> Result<EngineResult, MeasureError> {
    let outcome = measure_own(name, dir, plan, progress);
    let _ = std::fs::remove_dir_all(dir.join(name.name()));
    outcome
}

fn measure_own(
    name: EngineName,
    dir: &Path,
    plan: &EnginesPlan,
    progress: &mut dyn FnMut(&str),
) -> Result<EngineResult, MeasureError> {
    if !name.own_files() {
        return Err(MeasureError::Usage(format!(
            "{name} runs on a kv profile (run_engine)"
        )));
    }
    // Sized for the largest state a store of this run holds.
    let field_rows = if plan.field.is_empty() {
        0
    } else {
        plan.field_scale.max(1) * 20_000
    };
    let options = NomtOptions::for_leaves((UPDATE_LEAVES + plan.fill_leaves).max(field_rows));
    let batches = check_batches(plan.seed);
    let check = Check {
        batches: &batches,
        known_faults: name.known_faults(),
    };
    progress(&check.line(name));
    let checked = {
        let mut engine = NomtEngine::open(&own_dir(dir, name, "check")?, &options)?;
        check.run(&mut engine, &mut ModelNomt::default())?
    };
    let _ = std::fs::remove_dir_all(dir.join(name.name()).join("check"));
    let store = own_dir(dir, name, "store")?;
    let pids = [std::process::id()];
    let measured = {
        let mut engine = NomtEngine::open(&store, &options)?;
        Measure {
            name,
            plan,
            dir: Some(&store),
            progress: &mut *progress,
        }
        .run(&mut engine, &pids, |_| Ok((None, None)))?
    };
    let mut result = measured.result;
    progress(&evict_for_cold_reads(&store, measured.picks.len()));
    let engine = NomtEngine::open(&store, &options)?;
    let mut h = histogram();
    read_each(&engine, &measured.root, &measured.picks, name, &mut h)?;
    drop(engine);
    result.read_cold = Some(latency(&h));
    for &workload in &plan.field {
        progress(&format!(
            "{workload} at scale {} in a fresh directory",
            plan.field_scale.max(1)
        ));
        let mut engine =
            NomtEngine::open(&own_dir(dir, name, &format!("field-{workload}"))?, &options)?;
        let field = Field {
            workload,
            scale: plan.field_scale,
            seed: plan.seed,
            progress: &mut *progress,
        };
        result.field.push(field.run(&mut engine, &pids)?);
    }
    result.profile = OWN_FILES.to_string();
    result.checked_batches = checked.batches;
    result.scenarios = checked.scenarios;
    Ok(result)
}

/// Evicts `dir`'s files from the page cache before `reads` cold reads; the progress line
/// saying so.
fn evict_for_cold_reads(dir: &Path, reads: usize) -> String {
    let evicted = evict_dir(dir);
    format!(
        "evicted {} files ({} KiB); {reads} cold reads",
        evicted.files,
        evicted.bytes >> 10
    )
}

/// Whether `err` says the engine cannot run on this system (skip it, saying why).
pub fn is_unavailable(err: &MeasureError) -> bool {
    matches!(err, MeasureError::Engine(EngineError::Unavailable { .. }))
}

fn measure_engine(
    name: EngineName,
    profile: Profile,
    dir: Option<&Path>,
    plan: &EnginesPlan,
    progress: &mut dyn FnMut(&str),
) -> Result<EngineResult, MeasureError> {
    let batches = check_batches(plan.seed);
    let check = Check {
        batches: &batches,
        known_faults: name.known_faults(),
    };
    progress(&check.line(name));
    let check_spec = BackendSpec::new(profile, store_dir(dir, name, profile, "check")?)?;
    let checked = check_spec.open(
        name.tables(),
        Open {
            name,
            visitor: check,
        },
    )??;
    remove_stores(dir, name, profile);
    let store = store_dir(dir, name, profile, "store")?;
    let spec = BackendSpec::new(profile, store.clone())?;
    let measured = spec.open(
        name.tables(),
        Open {
            name,
            visitor: Measure {
                name,
                plan,
                dir: store.as_deref(),
                progress,
            },
        },
    )??;
    let mut result = measured.result;
    for &workload in &plan.field {
        progress(&format!(
            "{workload} at scale {} on a fresh store",
            plan.field_scale.max(1)
        ));
        let store = store_dir(dir, name, profile, &format!("field-{workload}"))?;
        let spec = BackendSpec::new(profile, store)?;
        let figures = spec.open(
            name.tables(),
            Open {
                name,
                visitor: Field {
                    workload,
                    scale: plan.field_scale,
                    seed: plan.seed,
                    progress: &mut *progress,
                },
            },
        )??;
        spec.discard()?;
        result.field.push(figures);
    }
    result.profile = profile.name().to_string();
    result.checked_batches = checked.batches;
    result.scenarios = checked.scenarios;
    if let Some(store_dir) = store.as_deref().filter(|_| has_cold_reads(profile)) {
        progress(&evict_for_cold_reads(store_dir, measured.picks.len()));
        result.read_cold = spec.open(
            name.tables(),
            ColdReads {
                name,
                root: &measured.root,
                commits: measured.commits,
                picks: &measured.picks,
            },
        )??;
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_list_the_engines() {
        assert_eq!("jmt".parse::<EngineName>(), Ok(EngineName::Jmt));
        assert_eq!("mpt".parse::<EngineName>(), Ok(EngineName::Mpt));
        let err = "iavl".parse::<EngineName>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown engine `iavl`: the engines are trie, jmt, mpt, transact, nomt"
        );
    }

    /// The trie with its roots' last byte flipped (an engine whose roots are wrong), or, with
    /// `true`, its roots right and every read of nothing (an engine that loses values).
    struct Wrong(TrieEngine<triebench_kv::btree::BTreeStore>, bool);

    impl Engine for Wrong {
        fn name(&self) -> &'static str {
            "wrong"
        }
        fn root(&self) -> Root {
            self.0.root()
        }
        fn apply(&mut self, batch: &[StateChange]) -> Result<Root, triebench_engines::EngineError> {
            let mut root = self.0.apply(batch)?;
            if let (false, Some(b)) = (self.1, root.0.last_mut()) {
                *b ^= 1;
            }
            Ok(root)
        }
        fn get(
            &self,
            root: &Root,
            address: &str,
        ) -> Result<Option<Vec<u8>>, triebench_engines::EngineError> {
            if self.1 {
                return Ok(None);
            }
            self.0.get(root, address)
        }
        fn prune_before(&mut self, root: &Root) -> Result<(), triebench_engines::EngineError> {
            self.0.prune_before(root)
        }
    }

    fn btree(tables: &[&str]) -> triebench_kv::btree::BTreeStore {
        triebench_kv::btree::BTreeStore::open(tables).expect("btree store")
    }

    #[test]
    fn the_check_passes_each_engine_and_stops_a_wrong_root_or_read() {
        let batches = check_batches(7);
        for name in ENGINES.into_iter().filter(|n| !n.own_files()) {
            let check = Check {
                batches: &batches,
                known_faults: name.known_faults(),
            };
            let checked =
                with_engine(name, btree(name.tables()), check).expect("a right engine passes");
            assert_eq!(checked.batches, batches.len() as u64);
            let names: Vec<&str> = checked.scenarios.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, crate::engine_scenarios::ENGINE_SCENARIOS);
            // Each did what its scenario does: e.g. `delete` commits twice and reads thrice.
            let delete = &checked.scenarios[2];
            assert_eq!((delete.commits, delete.reads, delete.prunes), (2, 3, 0));
            let skipped = checked
                .scenarios
                .iter()
                .filter(|s| s.skipped.is_some())
                .count();
            assert_eq!(skipped, name.known_faults().len());
        }
        // A known fault is a fault: without the skip, Transact's state fails that scenario.
        let no_skip = Check {
            batches: &batches,
            known_faults: &[],
        };
        let err = with_engine(
            EngineName::Transact,
            btree(EngineName::Transact.tables()),
            no_skip,
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                MeasureError::EngineScenario {
                    scenario: "update_same_address_space",
                    ..
                }
            ),
            "{err}"
        );
        // A wrong root: caught at the first scenario's commit, before anything is measured.
        let wrong = Wrong(TrieEngine::new(btree(TABLES)).expect("trie"), false);
        type Btree = triebench_kv::btree::BTreeStore;
        fn store_of(w: &Wrong) -> &Btree {
            w.0.state().store().as_ref()
        }
        let check = || Check {
            batches: &batches,
            known_faults: &[],
        };
        let err = EngineVisitor::<Btree>::visit(check(), wrong, store_of, ModelTrie::default())
            .unwrap_err();
        assert!(
            matches!(
                err,
                MeasureError::EngineScenario {
                    scenario: "empty_changes",
                    ..
                }
            ),
            "{err}"
        );
        // Right roots, a wrong read: caught by the first scenario that reads.
        let forgetful = Wrong(TrieEngine::new(btree(TABLES)).expect("trie"), true);
        let err = EngineVisitor::<Btree>::visit(check(), forgetful, store_of, ModelTrie::default())
            .unwrap_err();
        assert!(
            matches!(
                &err,
                MeasureError::EngineScenario {
                    scenario: "root_advance",
                    what,
                    ..
                } if what.contains("abcd")
            ),
            "{err}"
        );
        // And the batches' check on its own stops a wrong engine at its first batch.
        let mut wrong = Wrong(TrieEngine::new(btree(TABLES)).expect("trie"), false);
        let err = check_roots(&mut wrong, &mut ModelTrie::default(), &batches).unwrap_err();
        assert!(
            matches!(
                err,
                triebench_engines::EngineError::WrongRoot { batch: 0, .. }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_field_workload_runs_its_setup_then_times_its_commits() {
        let mut lines = Vec::new();
        let field = Field {
            workload: FieldWorkload::Firewood(
                triebench_workloads::field::firewood::Firewood::Single,
            ),
            scale: 1,
            seed: 7,
            progress: &mut |l: &str| lines.push(l.to_string()),
        };
        let figures =
            with_engine(EngineName::Mpt, btree(MPT_TABLES), field).expect("the workload runs");
        // Firewood's `single` at scale 1: 10,000 rows created in one commit, then 1,000
        // commits of one update each.
        assert_eq!(figures.workload, "firewood-single");
        assert_eq!(figures.setup_commits, 1);
        assert_eq!(figures.timed.commits, 1000);
        assert_eq!(figures.timed.leaves, 1000);
        assert_eq!(figures.timed.commit.count, 1000);
        assert!(
            lines.iter().any(|l| l.contains("1 setup commits done")),
            "{lines:?}"
        );
    }

    #[test]
    fn merk_on_an_engine_times_its_writes_and_skips_its_reads() {
        let field = Field {
            workload: FieldWorkload::Merk,
            scale: 1,
            seed: 7,
            progress: &mut |_: &str| {},
        };
        let figures =
            with_engine(EngineName::Mpt, btree(MPT_TABLES), field).expect("the workload runs");
        // Merk's at scale 1: 5 setup batches, then a batch of inserts and one of updates
        // timed; its batch of reads commits nothing and is left out.
        assert_eq!(figures.setup_commits, 5);
        assert_eq!(figures.timed.commits, 2);
        assert_eq!(figures.timed.leaves, 4_000);
    }

    #[test]
    fn nomt_runs_on_its_own_files_checked_then_measured() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let plan = EnginesPlan {
            fill_leaves: 300,
            fill_batch: 100,
            reads: 10,
            seed: 7,
            ..EnginesPlan::default()
        };
        let result = match run_own_engine(EngineName::Nomt, tmp.path(), &plan, &mut |_| {}) {
            Err(e) if is_unavailable(&e) => {
                eprintln!("skipped: {e}");
                return;
            }
            other => other.expect("nomt runs"),
        };
        assert_eq!(result.engine, "nomt");
        assert_eq!(result.profile, OWN_FILES);
        assert_eq!(result.checked_batches, check_batches(7).len() as u64);
        assert_eq!(result.scenarios.len(), 7);
        assert_eq!(result.update.commits, 1001);
        assert_eq!(result.fill.commits, 3);
        assert_eq!(result.leaves, 950 + 300);
        assert!(result.disk_bytes > 0);
        assert_eq!(result.read_cold.map(|c| c.count), Some(10));
        assert_eq!(result.proof.map(|p| p.count), Some(10));
        // Its directories are gone once measured.
        assert!(!tmp.path().join("nomt").exists());
        // Not a kv engine: asked to run on a profile, it says so.
        let err = with_engine(
            EngineName::Nomt,
            btree(TABLES),
            Check {
                batches: &[],
                known_faults: &[],
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("own files"), "{err}");
    }

    #[test]
    fn the_fill_is_split_into_batches_of_distinct_leaves() {
        let batches = fill_batches(7, 1001, 250);
        assert_eq!(
            batches.iter().map(Vec::len).collect::<Vec<_>>(),
            [250, 250, 250, 250, 1]
        );
        let mut all: Vec<String> = batches
            .iter()
            .flatten()
            .map(|c| match c {
                StateChange::Set { address, .. } | StateChange::Delete { address } => {
                    address.clone()
                }
            })
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 1001);
    }
}
