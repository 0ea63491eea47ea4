//! The storage crate and the workloads take their profile, scenario and phase names (and the
//! workload sizes) from `triebench-record`'s vocabulary, so the names cannot drift apart; what
//! each side still keeps is its order. The report lists profiles, scenarios and phases in the
//! order of the record's tables, the runs in that of `Profile::ALL`, `SCENARIOS` and
//! `Phase::ALL`, and each name is read from its table by position (a profile's or scenario's
//! variant, a phase's `Phase::index`): a reordered `ALL` or `SCENARIOS`, or an index out of
//! step, fails here.

use triebench_kv::{Phase, Profile};
use triebench_record::vocabulary::{PHASES, PROFILES, SCENARIOS};

#[test]
fn the_runs_go_in_the_order_the_report_lists() {
    assert_eq!(
        Profile::ALL.map(Profile::name),
        PROFILES.map(|facts| facts.name)
    );
    assert_eq!(triebench_workloads::SCENARIOS.map(|s| s.name()), SCENARIOS);
    assert_eq!(Phase::ALL.map(Phase::name), PHASES);
}
