//! Every Transact scenario on every backend profile this build includes, each run in a fresh
//! store (`FreshStores`: a new directory per run; the PostgreSQL profiles share one managed
//! server per profile, a schema per run, as the benches do). Profiles run side by side (the
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

    fn visit<S: Store>(self, store: S) -> Self::Output {
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

/// What Transact's own test of `scenario` checks of its outcome; one line per mismatch.
fn expectations(scenario: Scenario, o: &Outcome) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut expect = |what: &str, got: String, want: String| {
        if got != want {
            wrong.push(format!("{what} {got}, expected {want}"));
        }
    };
    let root_advanced = "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870";
    match scenario {
        Scenario::EmptyChanges => {
            expect("root", o.root.clone(), EMPTY_ROOT.into());
            expect("commits", o.commits.to_string(), "0".into());
        }
        Scenario::RootAdvance => {
            expect("root", o.root.clone(), root_advanced.into());
            expect("commits", o.commits.to_string(), "1".into());
        }
        Scenario::Delete => {
            expect("root", o.root.clone(), EMPTY_ROOT.into());
            // The failed delete does not count.
            expect("commits", o.commits.to_string(), "2".into());
        }
        Scenario::Update => {
            expect("root", o.root.clone(), UPDATE_FINAL_ROOT.into());
            expect("commits", o.commits.to_string(), "1001".into());
            // 950 values and 50 misses.
            expect("reads", o.reads.to_string(), "1000".into());
        }
        Scenario::UpdateSameAddressSpace => {
            expect("commits", o.commits.to_string(), "7".into());
            expect("reads", o.reads.to_string(), "6".into());
        }
        Scenario::UpdateSameAddressSpaceWithNoChildren => {
            expect("commits", o.commits.to_string(), "6".into());
            expect("reads", o.reads.to_string(), "6".into());
        }
        Scenario::PruningParent | Scenario::PruningSuccessors => {
            expect("pruned", o.pruned.to_string(), "4".into());
        }
        // The re-created (or shared) leaf must stay.
        Scenario::PruningDuplicateLeaves | Scenario::PruningSuccessorDuplicateLeaves => {
            expect("pruned", o.pruned.to_string(), "3".into());
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
                        Some((first_profile, expected)) if expected != outcome => {
                            failures.push(format!(
                                "{scenario}: [{profile}] and [{first_profile}] disagree: \
                                 {outcome:?} vs {expected:?}"
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

    fn visit<S: Store>(self, store: S) -> Self::Output {
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
