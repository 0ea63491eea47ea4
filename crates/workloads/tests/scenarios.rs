//! Every Transact scenario on every backend profile this build includes, each run in a fresh
//! store (`FreshStores`: a new directory per run; the PostgreSQL profiles share one managed
//! server, or one replicated pair, per profile, a schema per run, as the benches do;
//! `redis-replica-wait` one pair, a key namespace per run). Profiles run side by side (the
//! durable ones mostly wait on fsync); every scenario must finish where Transact's does, and
//! all profiles must agree. A failure names the profile and the scenario.

use triebench_kv::{BackendSpec, FreshStores, Profile, Store, StoreVisitor};
use triebench_merkle::{EMPTY_ROOT, TABLES};
use triebench_workloads::{
    run_scenario, Outcome, Scenario, WorkloadError, SCENARIOS, UPDATE_FINAL_ROOT,
};

/// Runs one scenario on the opened store.
struct RunScenario(Scenario);

impl StoreVisitor for RunScenario {
    type Output = Result<Outcome, WorkloadError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        self.0.run(&store)
    }
}

/// Every scenario on fresh stores of `profile`, in [`SCENARIOS`] order.
fn run_all_on(profile: Profile) -> Vec<Result<Outcome, String>> {
    let stores = tempfile::tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))
        .and_then(|parent| {
            let stores = FreshStores::new(profile, parent.path())
                .map_err(|e| format!("cannot start the stores: {e}"))?;
            Ok((stores, parent))
        });
    SCENARIOS
        .iter()
        .map(|&scenario| match &stores {
            Ok((stores, _parent)) => stores
                .run(TABLES, RunScenario(scenario))
                .map_err(|e| format!("cannot open the store: {e}"))?
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        })
        .collect()
}

/// What Transact's own test of a scenario checks of its outcome (`None`: not checked).
#[derive(Default)]
struct Expected {
    root: Option<&'static str>,
    commits: Option<usize>,
    reads: Option<usize>,
    pruned: Option<usize>,
}

fn expected(scenario: Scenario) -> Expected {
    let root_advanced = "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870";
    let (root, commits, reads, pruned) = match scenario {
        Scenario::EmptyChanges => (Some(EMPTY_ROOT), Some(0), None, None),
        Scenario::RootAdvance => (Some(root_advanced), Some(1), None, None),
        // The failed delete does not count.
        Scenario::Delete => (Some(EMPTY_ROOT), Some(2), None, None),
        // 950 values and 50 misses.
        Scenario::Update => (Some(UPDATE_FINAL_ROOT), Some(1001), Some(1000), None),
        Scenario::UpdateSameAddressSpace => (None, Some(7), Some(6), None),
        Scenario::UpdateSameAddressSpaceWithNoChildren => (None, Some(6), Some(6), None),
        Scenario::PruningParent | Scenario::PruningSuccessors => (None, None, None, Some(4)),
        // The re-created (or shared) leaf must stay.
        Scenario::PruningDuplicateLeaves | Scenario::PruningSuccessorDuplicateLeaves => {
            (None, None, None, Some(3))
        }
    };
    Expected {
        root,
        commits,
        reads,
        pruned,
    }
}

/// Where `o` differs from what [`expected`] says of `scenario`; one line per mismatch.
fn expectations(scenario: Scenario, o: &Outcome) -> Vec<String> {
    let e = expected(scenario);
    let mut wrong = Vec::new();
    if let Some(root) = e.root.filter(|r| *r != o.root) {
        wrong.push(format!("root {}, expected {root}", o.root));
    }
    for (what, want, got) in [
        ("commits", e.commits, o.commits),
        ("reads", e.reads, o.reads),
        ("pruned", e.pruned, o.pruned),
    ] {
        if let Some(want) = want.filter(|w| *w != got) {
            wrong.push(format!("{what} {got}, expected {want}"));
        }
    }
    wrong
}

#[test]
fn every_scenario_on_every_profile_finishes_where_transacts_does() {
    let results: Vec<(Profile, Vec<Result<Outcome, String>>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = Profile::enabled()
            .into_iter()
            .map(|profile| (profile, scope.spawn(move || run_all_on(profile))))
            .collect();
        handles
            .into_iter()
            .map(|(profile, handle)| {
                let outcomes = handle.join().unwrap_or_else(|_| {
                    vec![Err("the workload panicked".to_string()); SCENARIOS.len()]
                });
                (profile, outcomes)
            })
            .collect()
    });
    let mut failures = Vec::new();
    for (i, &scenario) in SCENARIOS.iter().enumerate() {
        let mut first: Option<(Profile, &Outcome)> = None;
        for (profile, outcomes) in &results {
            match &outcomes[i] {
                Err(message) => failures.push(format!("[{profile}] {scenario}: {message}")),
                Ok(outcome) => {
                    failures.extend(
                        expectations(scenario, outcome)
                            .into_iter()
                            .map(|w| format!("[{profile}] {scenario}: {w}")),
                    );
                    match first {
                        None => first = Some((*profile, outcome)),
                        Some((first_profile, expected))
                            if expected.what_it_did() != outcome.what_it_did() =>
                        {
                            failures.push(format!(
                                "{scenario}: [{profile}] and [{first_profile}] disagree: \
                                 {:?} vs {:?}",
                                outcome.what_it_did(),
                                expected.what_it_did()
                            ))
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Runs a scenario by name on a btree store.
struct ByName(&'static str);

impl StoreVisitor for ByName {
    type Output = Result<Outcome, WorkloadError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        run_scenario(self.0, &store)
    }
}

#[test]
fn every_registered_scenario_runs_by_name_and_unknown_names_fail() {
    let spec = BackendSpec::new(Profile::Btree, None).unwrap();
    for scenario in SCENARIOS {
        let outcome = spec.open(TABLES, ByName(scenario.name())).unwrap();
        assert!(outcome.is_ok(), "{scenario}: {:?}", outcome);
    }
    let err = spec
        .open(TABLES, ByName("prune_parent"))
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(err, WorkloadError::UnknownScenario { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("pruning_parent"), "{err}");
}
