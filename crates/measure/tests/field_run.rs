//! The field runner on real stores: counts of setup and timed commits, leaves written, and
//! the same final root in memory and on LMDB (the workload is seeded; a wrong commit would
//! change it).

use triebench_kv::BackendSpec;
use triebench_measure::field_run::{FieldPlan, FieldRun};
use triebench_merkle::TABLES;
use triebench_record::field::FieldResult;
use triebench_workloads::field::firewood::Firewood;
use triebench_workloads::field::merk::MerkCommits;
use triebench_workloads::field::{CommitsDigest, FieldWorkload};

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

#[test]
fn merk_times_inserts_updates_and_reads_apart() {
    let mem = run("btree", FieldWorkload::Merk);
    // Scale 1: 5 setup batches of 2,000; a batch each of inserts, updates (the commits) and
    // reads (no commit).
    assert_eq!((mem.setup_commits, mem.commits), (5, 2));
    assert_eq!((mem.leaves, mem.reads), (4_000, 2_000));
    assert_eq!(mem.commit.count, 2, "the read batch is no commit");
    for rate in [mem.inserts_per_s, mem.updates_per_s, mem.reads_per_s] {
        assert!(rate.is_some_and(|r| r > 0.0), "{mem:?}");
    }
    let lmdb = run("lmdb", FieldWorkload::Merk);
    assert_eq!(lmdb.final_root, mem.final_root);
    assert_eq!(lmdb.reads, 2_000);
    // The digest of the commits run: what Merk's side (merk-runner) is checked against.
    let mut digest = CommitsDigest::new();
    for (phase, commit) in MerkCommits::new(1, 5) {
        digest.add(phase, &commit);
    }
    let digest = digest.finish();
    assert_eq!(mem.commits_sha256.as_deref(), Some(digest.as_str()));
    assert_eq!(lmdb.commits_sha256, mem.commits_sha256);
}

#[test]
fn tenkrandom_mixes_kinds_so_has_no_per_kind_rate() {
    let r = run("btree", FieldWorkload::Firewood(Firewood::Tenkrandom));
    assert_eq!(
        (r.inserts_per_s, r.updates_per_s, r.reads_per_s),
        (None, None, None)
    );
    assert_eq!(r.reads, 0);
}
