//! The names `triebench-record` fixes for the report (profiles, scenarios, phases, workload
//! sizes) are the ones the storage crate and the workloads run under: a profile, scenario or
//! phase added, renamed or reordered there fails here until the record's tables follow.

use triebench_kv::{Phase, Profile};
use triebench_record::vocabulary::{FLOOR_COMMITS, PHASES, PROFILES, SCENARIOS, UPDATE_KEYS};

#[test]
fn the_profile_table_is_the_storage_crates() {
    assert_eq!(PROFILES.len(), Profile::ALL.len());
    for (facts, profile) in PROFILES.iter().zip(Profile::ALL) {
        assert_eq!(facts.name, profile.name());
        assert_eq!(
            facts.fsyncs_each_commit,
            profile.fsyncs_each_commit(),
            "{profile}"
        );
        assert_eq!(facts.feature, profile.feature(), "{profile}");
        assert_eq!(facts.describe, profile.describe(), "{profile}");
    }
}

#[test]
fn scenario_and_phase_names_and_workload_sizes_are_the_workloads() {
    assert_eq!(SCENARIOS, triebench_workloads::SCENARIOS.map(|s| s.name()));
    assert_eq!(PHASES, Phase::ALL.map(Phase::name));
    assert_eq!(FLOOR_COMMITS, triebench_workloads::floor::FLOOR_COMMITS);
    assert_eq!(UPDATE_KEYS, triebench_workloads::UPDATE_KEYS);
}
