//! Transact's `merkle_trie_*` scenarios as every engine can run them: on the [`Engine`] trait,
//! which commits on its latest version only and drops versions older than a kept one.
//!
//! Eight of the ten apply. Seven run here, each with its commits, reads and prunes as
//! Transact's test has them (addresses, values and order from `triebench-workloads`'
//! scenarios): `empty_changes`, `root_advance`, `delete`, `update_same_address_space`,
//! `update_same_address_space_with_no_children`, `pruning_parent`, `pruning_duplicate_leaves`;
//! `update` is the engines run's own `update` section. Two do not: `pruning_successors` and
//! `pruning_successor_duplicate_leaves` commit two versions on one parent or prune a tip, which
//! the trait has no way to ask for. What Transact checks of its own format (change logs, the
//! node hashes a prune removes, a failing delete of an absent address) is the trie's alone and
//! stays in the trie's scenarios.
//!
//! The scenarios run one after another on one engine, so each checks what it does against the
//! state it started from: every read against a model (the map of every version the scenario
//! made), a batch that changes nothing against the root before it, a set then delete against
//! the root before the set. Every batch is also applied to the engine's reference and the roots
//! compared. A wrong read or root is [`MeasureError::EngineScenario`]. The engine's calls are
//! timed; the checks are not. On an engine that keeps its latest version only
//! ([`Engine::keeps_versions`]), reads of older versions are skipped.

use std::collections::BTreeMap;
use std::time::Instant;

use triebench_engines::{Engine, Root};
use triebench_merkle::StateChange;
use triebench_record::engines::ScenarioFigures;
use triebench_workloads::scenarios::{ASDFG, BNMVC, HJKLK, PRUNING_PARENT, QWERT, YUIOP, ZXCVB};

use crate::error::MeasureError;
use crate::timed::elapsed_ns;

/// The scenarios every engine runs, by Transact's names, in its test file's order.
pub const ENGINE_SCENARIOS: [&str; 7] = [
    "empty_changes",
    "root_advance",
    "delete",
    "update_same_address_space",
    "update_same_address_space_with_no_children",
    "pruning_parent",
    "pruning_duplicate_leaves",
];

/// A state: address -> value.
type State = BTreeMap<String, Vec<u8>>;

/// One scenario on one engine: the versions it made (each root with the state it holds), what
/// it did and the time the engine's calls took.
struct ScenarioRun<'a, E, R> {
    scenario: &'static str,
    engine: &'a mut E,
    reference: &'a mut R,
    /// Version 0 is the state the scenario started from.
    versions: Vec<(Root, State)>,
    figures: ScenarioFigures,
    ns: u64,
}

impl<'a, E: Engine, R: Engine> ScenarioRun<'a, E, R> {
    fn new(scenario: &'static str, engine: &'a mut E, reference: &'a mut R, state: &State) -> Self {
        let root = engine.root();
        ScenarioRun {
            scenario,
            engine,
            reference,
            versions: vec![(root, state.clone())],
            figures: ScenarioFigures {
                name: scenario.to_string(),
                ..ScenarioFigures::default()
            },
            ns: 0,
        }
    }

    fn wrong(&self, what: String) -> MeasureError {
        MeasureError::EngineScenario {
            engine: self.engine.name(),
            scenario: self.scenario,
            what,
        }
    }

    /// Commits `batch` (later changes to an address win), checked against the reference.
    fn apply(&mut self, batch: &[StateChange]) -> Result<(), MeasureError> {
        let mut state = self.latest().1.clone();
        for change in batch {
            match change {
                StateChange::Set { address, value } => {
                    state.insert(address.clone(), value.clone());
                }
                StateChange::Delete { address } => {
                    state.remove(address);
                }
            }
        }
        let t = Instant::now();
        let root = self.engine.apply(batch)?;
        self.ns = self.ns.saturating_add(elapsed_ns(t));
        self.figures.commits += 1;
        let expected = self.reference.apply(batch)?;
        if root != expected {
            return Err(self.wrong(format!(
                "commit {} gave root {root}, its reference ({}) {expected}",
                self.figures.commits,
                self.reference.name()
            )));
        }
        self.versions.push((root, state));
        Ok(())
    }

    fn latest(&self) -> &(Root, State) {
        // `versions` starts with one entry and only grows.
        &self.versions[self.versions.len() - 1]
    }

    /// Reads `address` at version `at` and checks it against the model; a read of an older
    /// version is skipped on an engine that keeps its latest version only.
    fn read_at(&mut self, at: usize, address: &str) -> Result<(), MeasureError> {
        if at + 1 < self.versions.len() && !self.engine.keeps_versions() {
            return Ok(());
        }
        let Some((root, state)) = self.versions.get(at) else {
            return Err(self.wrong(format!("no version {at}")));
        };
        let (root, expected) = (root.clone(), state.get(address).cloned());
        let t = Instant::now();
        let got = self.engine.get(&root, address)?;
        self.ns = self.ns.saturating_add(elapsed_ns(t));
        self.figures.reads += 1;
        if got != expected {
            return Err(self.wrong(format!(
                "{address} at version {at} ({root}) reads {}, the model {}",
                show(got.as_deref()),
                show(expected.as_deref())
            )));
        }
        Ok(())
    }

    /// Reads every address the latest version holds or an earlier one held.
    fn read_all_latest(&mut self) -> Result<(), MeasureError> {
        let at = self.versions.len() - 1;
        let addresses: std::collections::BTreeSet<String> = self
            .versions
            .iter()
            .flat_map(|(_, s)| s.keys().cloned())
            .collect();
        for address in &addresses {
            self.read_at(at, address)?;
        }
        Ok(())
    }

    /// Versions `a` and `b` must have the same root (`true`) or different ones.
    fn expect_same_root(&self, a: usize, b: usize, same: bool) -> Result<(), MeasureError> {
        let (ra, rb) = (&self.versions[a].0, &self.versions[b].0);
        if (ra == rb) != same {
            return Err(self.wrong(format!(
                "versions {a} and {b} have roots {ra} and {rb}: expected them {}",
                if same { "equal" } else { "different" }
            )));
        }
        Ok(())
    }

    /// Drops every version before the latest.
    fn prune_to_latest(&mut self) -> Result<(), MeasureError> {
        let root = self.latest().0.clone();
        let t = Instant::now();
        self.engine.prune_before(&root)?;
        self.ns = self.ns.saturating_add(elapsed_ns(t));
        self.figures.prunes += 1;
        Ok(())
    }

    fn finish(mut self) -> (ScenarioFigures, State) {
        self.figures.total_us = self.ns as f64 / 1e3;
        let state = self.latest().1.clone();
        (self.figures, state)
    }
}

fn show(v: Option<&[u8]>) -> String {
    v.map_or_else(
        || "nothing".to_string(),
        |v| format!("{:?}", String::from_utf8_lossy(v)),
    )
}

fn set(address: &str, value: &str) -> StateChange {
    StateChange::Set {
        address: address.to_string(),
        value: value.as_bytes().to_vec(),
    }
}

fn del(address: &str) -> StateChange {
    StateChange::Delete {
        address: address.to_string(),
    }
}

fn scenario<E: Engine, R: Engine>(
    name: &'static str,
    run: &mut ScenarioRun<'_, E, R>,
) -> Result<(), MeasureError> {
    let parent: Vec<StateChange> = PRUNING_PARENT.iter().map(|(a, v)| set(a, v)).collect();
    match name {
        "empty_changes" => {
            // No changes: the same root.
            run.apply(&[])?;
            run.expect_same_root(0, 1, true)
        }
        "root_advance" => {
            // A new root that has the value; the old one does not.
            run.apply(&[set("abcd", "data_value")])?;
            run.expect_same_root(0, 1, false)?;
            run.read_at(0, "abcd")?;
            run.read_at(1, "abcd")
        }
        "delete" => {
            // Set then delete: back to the root before the set; the middle one keeps the value.
            run.apply(&[set("1234", "deletable")])?;
            run.read_at(1, "1234")?;
            run.apply(&[del("1234")])?;
            run.expect_same_root(0, 2, true)?;
            run.read_at(1, "1234")?;
            run.read_at(2, "1234")
        }
        "update_same_address_space" | "update_same_address_space_with_no_children" => {
            let all = [ASDFG, QWERT, ZXCVB, YUIOP, HJKLK, BNMVC];
            // (value, address) pairs: all six first, or all but `asdfg`, which the batch adds.
            type Entries<'a> = &'a [(&'a str, &'a str)];
            let (initial, updated): (Entries, Entries) = if name == "update_same_address_space" {
                (&all, &all)
            } else {
                (&all[1..], &all[..1])
            };
            for (value, address) in initial {
                run.apply(&[set(address, value)])?;
            }
            let mut batch: Vec<StateChange> = updated.iter().map(|(_, a)| set(a, "2.0")).collect();
            batch.extend([YUIOP, HJKLK, BNMVC].iter().map(|(_, a)| del(a)));
            run.apply(&batch)?;
            run.read_all_latest()
        }
        "pruning_parent" => {
            // A successor replaces one leaf; the parent is pruned; the successor reads whole.
            run.apply(&parent)?;
            run.apply(&[set("ab0000", "test")])?;
            run.prune_to_latest()?;
            run.read_all_latest()
        }
        "pruning_duplicate_leaves" => {
            // The last version re-creates the parent's leaf; pruning the older ones keeps it.
            run.apply(&parent)?;
            run.apply(&[set("ab0000", "change0"), set("ab0001", "change1")])?;
            run.apply(&[set("ab0000", "0001")])?;
            run.prune_to_latest()?;
            run.read_all_latest()
        }
        other => Err(MeasureError::Usage(format!(
            "no engine scenario `{other}`: they are {}",
            ENGINE_SCENARIOS.join(", ")
        ))),
    }
}

/// A scenario an engine is known to get wrong, and why: (scenario, reason). It is skipped on
/// that engine, and the record says why.
pub type KnownFault = (&'static str, &'static str);

/// Runs [`ENGINE_SCENARIOS`] one after another on `engine`, from its current state, each
/// batch also applied to `reference` (which must be at the same state) and the roots compared;
/// those in `known_faults` are skipped.
pub fn run_scenarios<E: Engine, R: Engine>(
    engine: &mut E,
    reference: &mut R,
    start: &State,
    known_faults: &[KnownFault],
) -> Result<Vec<ScenarioFigures>, MeasureError> {
    let mut state = start.clone();
    let mut out = Vec::with_capacity(ENGINE_SCENARIOS.len());
    for name in ENGINE_SCENARIOS {
        if let Some((_, why)) = known_faults.iter().find(|(s, _)| *s == name) {
            out.push(ScenarioFigures {
                name: name.to_string(),
                skipped: Some(why.to_string()),
                ..ScenarioFigures::default()
            });
            continue;
        }
        let mut run = ScenarioRun::new(name, engine, reference, &state);
        scenario(name, &mut run)?;
        let (figures, after) = run.finish();
        out.push(figures);
        state = after;
    }
    Ok(out)
}
