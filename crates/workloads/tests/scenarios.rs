//! Every Transact scenario on every backend profile this build includes, each run in a fresh
//! store in its own temporary directory. A failure names the profile and the scenario.

use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor};
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

/// Runs `scenario` in a fresh store of `profile` in its own temporary directory.
fn run_on(profile: Profile, scenario: Scenario) -> Result<Outcome, String> {
    let dir =
        tempfile::tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let spec = BackendSpec::new(profile, Some(dir.path().to_path_buf()))
        .map_err(|e| format!("bad spec: {e}"))?;
    spec.open(TABLES, RunScenario(scenario))
        .map_err(|e| format!("cannot open the store: {e}"))?
        .map_err(|e| e.to_string())
}

/// Runs `scenario` on each enabled profile (concurrently: the durable ones mostly wait on
/// fsync); fails listing every profile where it failed, and checks that all profiles did the
/// same work and finished at the same root.
fn run_everywhere(scenario: Scenario) -> Outcome {
    let results: Vec<(Profile, Result<Outcome, String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = Profile::enabled()
            .into_iter()
            .map(|profile| (profile, scope.spawn(move || run_on(profile, scenario))))
            .collect();
        handles
            .into_iter()
            .map(|(profile, handle)| {
                let result = handle
                    .join()
                    .unwrap_or_else(|_| Err("the workload panicked".to_string()));
                (profile, result)
            })
            .collect()
    });
    let mut failures = Vec::new();
    let mut outcomes: Vec<(Profile, Outcome)> = Vec::new();
    for (profile, result) in results {
        match result {
            Ok(outcome) => outcomes.push((profile, outcome)),
            Err(message) => failures.push(format!("[{profile}] {scenario}: {message}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    let (first_profile, first) = outcomes.remove(0);
    for (profile, outcome) in outcomes {
        assert_eq!(
            outcome, first,
            "{scenario}: [{profile}] and [{first_profile}] disagree"
        );
    }
    first
}

#[test]
fn empty_changes() {
    let outcome = run_everywhere(Scenario::EmptyChanges);
    assert_eq!(outcome.root, EMPTY_ROOT);
    assert_eq!(outcome.commits, 0);
}

#[test]
fn root_advance() {
    let outcome = run_everywhere(Scenario::RootAdvance);
    assert_eq!(
        outcome.root,
        "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870"
    );
    assert_eq!(outcome.commits, 1);
}

#[test]
fn delete() {
    let outcome = run_everywhere(Scenario::Delete);
    assert_eq!(outcome.root, EMPTY_ROOT);
    assert_eq!(outcome.commits, 2, "the failed delete must not count");
}

#[test]
fn update() {
    let outcome = run_everywhere(Scenario::Update);
    assert_eq!(outcome.root, UPDATE_FINAL_ROOT);
    assert_eq!(outcome.commits, 1001);
    assert_eq!(outcome.reads, 1000, "950 values and 50 misses");
}

#[test]
fn update_same_address_space() {
    let outcome = run_everywhere(Scenario::UpdateSameAddressSpace);
    assert_eq!(outcome.commits, 7);
    assert_eq!(outcome.reads, 6);
}

#[test]
fn update_same_address_space_with_no_children() {
    let outcome = run_everywhere(Scenario::UpdateSameAddressSpaceWithNoChildren);
    assert_eq!(outcome.commits, 6);
    assert_eq!(outcome.reads, 6);
}

#[test]
fn pruning_parent() {
    let outcome = run_everywhere(Scenario::PruningParent);
    assert_eq!(outcome.pruned, 4);
}

#[test]
fn pruning_successors() {
    let outcome = run_everywhere(Scenario::PruningSuccessors);
    assert_eq!(outcome.pruned, 4);
}

#[test]
fn pruning_duplicate_leaves() {
    let outcome = run_everywhere(Scenario::PruningDuplicateLeaves);
    assert_eq!(outcome.pruned, 3, "the re-created leaf must stay");
}

#[test]
fn pruning_successor_duplicate_leaves() {
    let outcome = run_everywhere(Scenario::PruningSuccessorDuplicateLeaves);
    assert_eq!(outcome.pruned, 3, "the shared leaf must stay");
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
