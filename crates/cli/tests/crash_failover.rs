//! `triebench crash-test --failover` end to end on real PostgreSQL pairs and a Redis primary
//! with its replica: the synchronous standby (and the replica behind `WAIT 1`) loses no
//! acknowledged commit, the asynchronous one's loss window is measured, and the rounds leave no
//! server, proxy or socket directory behind.
#![cfg(feature = "postgres-db")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use triebench_record::failover::{FailoverFile, FAILOVER_FILE};

const BIN: &str = env!("CARGO_BIN_EXE_triebench");

/// Runs `crash-test --failover` with `args`; returns (summary, failover.json, the run's pid).
fn failover(dir: &Path, out: &Path, args: &[&str]) -> (String, FailoverFile, u32) {
    let child = Command::new(BIN)
        .args([
            "crash-test",
            "--failover",
            "--seed",
            "7",
            "--max-crash-ms",
            "150",
        ])
        .arg("--dir")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run triebench crash-test --failover");
    let pid = child.id();
    let output = child.wait_with_output().expect("wait for triebench");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "crash-test --failover {args:?} failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(out.join(FAILOVER_FILE)).expect("failover.json");
    let file: FailoverFile = serde_json::from_str(&text).expect("parse failover.json");
    (stdout, file, pid)
}

/// What the run with `pid` could have left: private socket directories under /tmp, and
/// processes working under `dir`.
fn leftovers(pid: u32, dir: &Path) -> Vec<PathBuf> {
    let mut left: Vec<PathBuf> = ["pg", "net"]
        .iter()
        .flat_map(|kind| {
            let prefix = format!("triebench-{kind}-{pid}-");
            std::fs::read_dir("/tmp")
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .filter(move |e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
        })
        .collect();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) {
            if cwd.starts_with(dir) {
                left.push(entry.path());
            }
        }
    }
    left.extend(
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path()),
    );
    left
}

#[test]
fn a_synchronous_standby_keeps_every_acknowledged_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("stores"), tmp.path().join("out"));
    let (summary, file, pid) = failover(
        &dir,
        &out,
        &[
            "--backend",
            "postgres-sync-standby",
            "--rounds",
            "3",
            "--net-rtt",
            "0",
        ],
    );
    assert!(summary.contains("3 rounds"), "{summary}");
    assert!(summary.contains(" 0 lost"), "{summary}");
    assert!(summary.contains(" 0 corrupt"), "{summary}");
    let run = &file.runs[0];
    assert_eq!((run.rounds, run.lost, run.corrupt), (3, 0, 0), "{run:?}");
    assert_eq!(run.promised, "keeps-acked");
    assert!(run.net.is_some() && run.standby_link.is_some(), "{run:?}");
    for round in &run.per_round {
        assert!(round.acknowledged > 0, "{round:?}");
        assert!(round.last_ack_to_kill_us.is_some(), "{round:?}");
        assert_eq!(round.lost_window_us, None, "{round:?}");
    }
    assert!(out.join("failover.md").is_file());
    assert!(out.join("env.json").is_file());
    assert_eq!(leftovers(pid, &dir), Vec::<PathBuf>::new());
}

#[test]
fn an_asynchronous_standby_s_loss_window_is_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("stores"), tmp.path().join("out"));
    // A far standby (the replication link alone delayed): its lag is what a failover loses.
    let (summary, file, pid) = failover(
        &dir,
        &out,
        &[
            "--backend",
            "postgres-async-standby",
            "--rounds",
            "3",
            "--standby-rtt",
            "20ms",
        ],
    );
    assert!(summary.contains(" 0 corrupt"), "{summary}");
    let run = &file.runs[0];
    assert_eq!(run.promised, "loses-lag");
    assert_eq!(run.rounds, 3);
    assert!(run.net.is_none() && run.standby_link.is_some(), "{run:?}");
    for round in &run.per_round {
        assert!(round.acknowledged > 0, "{round:?}");
        assert!(round.lost <= round.acknowledged, "{round:?}");
        assert!(round.last_ack_to_kill_us.is_some(), "{round:?}");
        // The window in time is there exactly when something was lost.
        assert_eq!(round.lost_window_us.is_some(), round.lost > 0, "{round:?}");
        assert!(round.lost_tail <= round.lost, "{round:?}");
    }
    assert_eq!(
        run.lost,
        run.per_round.iter().map(|r| r.lost).sum::<u64>(),
        "{run:?}"
    );
    assert_eq!(leftovers(pid, &dir), Vec::<PathBuf>::new());
}

#[cfg(feature = "redis-db")]
#[test]
fn a_redis_replica_behind_wait_keeps_every_acknowledged_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("stores"), tmp.path().join("out"));
    let (summary, file, pid) = failover(
        &dir,
        &out,
        &[
            "--backend",
            "redis-replica-wait",
            "--rounds",
            "3",
            "--net-rtt",
            "0",
        ],
    );
    assert!(summary.contains(" 0 lost"), "{summary}");
    assert!(summary.contains(" 0 corrupt"), "{summary}");
    let run = &file.runs[0];
    assert_eq!((run.rounds, run.lost, run.corrupt), (3, 0, 0), "{run:?}");
    for round in &run.per_round {
        assert!(round.acknowledged > 0, "{round:?}");
    }
    let redis_dirs: Vec<_> = std::fs::read_dir("/tmp")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("triebench-redis-{pid}-"))
        })
        .collect();
    assert!(redis_dirs.is_empty(), "{redis_dirs:?}");
    assert_eq!(leftovers(pid, &dir), Vec::<PathBuf>::new());
}

#[test]
fn failover_needs_a_profile_with_a_standby() {
    let output = Command::new(BIN)
        .args(["crash-test", "--failover", "--backend", "postgres"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("postgres-sync-standby"), "{stderr}");
    assert!(stderr.contains("has none it fails over to"), "{stderr}");
}
