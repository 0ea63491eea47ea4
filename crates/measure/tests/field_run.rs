//! The field runner on real stores: counts of setup and timed commits, leaves written, and
//! the same final root in memory and on LMDB (the workload is seeded; a wrong commit would
//! change it).

use triebench_kv::BackendSpec;
use triebench_measure::field_run::{FieldPlan, FieldRun};
use triebench_merkle::TABLES;
use triebench_record::field::FieldResult;
use triebench_workloads::field::firewood::Firewood;
use triebench_workloads::field::FieldWorkload;

fn run(profile: &str, workload: FieldWorkload) -> FieldResult {
    let dir = tempfile::tempdir().unwrap();
    let dir_arg = (profile != "btree").then(|| dir.path().to_path_buf());
    let spec = BackendSpec::parse(profile, dir_arg).unwrap();
    let mut commits = 0;
    let result = spec
        .open(
            TABLES,
            FieldRun {
                plan: FieldPlan {
                    workload,
                    scale: 1,
                    seed: 5,
                },
                profile: profile.into(),
                progress: &mut |done, _| commits = done,
            },
        )
        .unwrap()
        .unwrap();
    assert_eq!(commits, result.setup_commits + result.commits);
    result
}

#[test]
fn tenkrandom_counts_and_roots_agree_across_stores() {
    let w = FieldWorkload::Firewood(Firewood::Tenkrandom);
    let mem = run("btree", w);
    assert_eq!((mem.setup_commits, mem.commits), (1, 1));
    assert_eq!(mem.leaves, 10_000);
    assert_eq!(mem.commit.count, 1);
    assert!(mem.commits_per_s > 0.0);
    assert_eq!(run("lmdb", w).final_root, mem.final_root);
}

#[test]
fn single_times_one_leaf_per_commit() {
    let r = run("btree", FieldWorkload::Firewood(Firewood::Single));
    assert_eq!((r.setup_commits, r.commits, r.leaves), (1, 1_000, 1_000));
}
