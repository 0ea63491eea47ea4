//! Merk's own code on the `merk` workload at scale 1: every value written reads back, two runs
//! come to the same root, and merk-runner's line is the record triebench reads, with the same
//! digest triebench computes over the same commits.

use std::process::Command;

use triebench_merk::bench::MerkBench;
use triebench_record::merk_side::MerkSide;
use triebench_workloads::field::merk::MerkCommits;
use triebench_workloads::field::CommitsDigest;

fn digest(scale: u64, seed: u64) -> String {
    let mut digest = CommitsDigest::new();
    for (phase, commit) in MerkCommits::new(scale, seed) {
        digest.add(phase, &commit);
    }
    digest.finish()
}

#[test]
fn every_value_reads_back_and_two_runs_agree() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut roots = Vec::new();
    for dir in &dirs {
        let mut bench = MerkBench::open(&dir.path().join("merk")).unwrap();
        bench.run(1, 5).unwrap();
        // Scale 1: 10,000 keys of setup, then 2,000 inserts.
        assert_eq!(bench.keys_held(), 12_000);
        assert_eq!(bench.check_every_value().unwrap(), 12_000);
        let root = bench.root_hex();
        let side = bench.finish().unwrap();
        assert_eq!(side.final_root, root);
        assert_eq!(root.len(), 40);
        assert_eq!(
            (side.inserts, side.updates, side.reads),
            (2_000, 2_000, 2_000)
        );
        assert_eq!(side.reads_checked, 2_000);
        assert_eq!(side.setup_batches, 5);
        assert!(!side.synced);
        assert!(side.bytes_on_disk > 0);
        assert_eq!(side.commits_sha256, digest(1, 5));
        roots.push(root);
    }
    assert_eq!(roots[0], roots[1]);
    assert_ne!(roots[0], "00".repeat(20));
}

#[test]
fn the_runner_prints_one_line_triebench_reads() {
    let dir = tempfile::tempdir().unwrap();
    let merk_dir = dir.path().join("merk");
    let output = Command::new(env!("CARGO_BIN_EXE_merk-runner"))
        .args(["--scale", "1", "--seed", "3", "--dir"])
        .arg(&merk_dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let side: MerkSide = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(side.engine, "Merk 2.0.1");
    assert_eq!((side.scale, side.seed), (1, 3));
    assert_eq!(side.commits_sha256, digest(1, 3));
    assert!(side.inserts_per_s > 0.0 && side.updates_per_s > 0.0 && side.reads_per_s > 0.0);
    // The library RocksDB itself reports loading (the system's, see .cargo/config.toml).
    assert!(!side.rocksdb.is_empty(), "no RocksDB version in its LOG");
    assert_eq!(side.reads_checked, side.reads);
}

#[test]
fn the_runner_refuses_a_directory_in_use_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("left"), b"x").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_merk-runner"))
        .args(["--scale", "1", "--seed", "1", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("merk-runner: ") && stderr.contains("is not empty"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}
