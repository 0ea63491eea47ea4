//! `triebench crash-test` end to end: a few process-crash rounds on every profile this build
//! has, and a power-cut round on each durable one (slowfs power-loss mode; skipped without
//! FUSE, except under `CI=true`, where that fails). Durable profiles must lose nothing, no
//! profile may be corrupt, and the rounds leave no processes, mounts or temporary directories.
//!
//! The leftover checks look at the whole machine (socket directories under /tmp whose owner is
//! gone), so this test must not share the machine with other crash tests: the project's
//! nextest configuration (`.config/nextest.toml`) runs it alone. Inside, the profiles run a few
//! at a time ([`PARALLEL_RUNS`]): each run mostly waits on servers and fsyncs.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::crash::{fuse_unavailable, run_crash_test};
use triebench_kv::{Durability, Profile};

/// Runs crash-test on `profile` with a private TMPDIR and returns its summary (stdout).
fn crash_test(profile: Profile, tmp: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "--backend",
        profile.name(),
        "--seed",
        "7",
        "--max-crash-ms",
        "120",
    ];
    args.extend(extra);
    run_crash_test(tmp, &args)
}

/// How many crash-test runs go at once.
const PARALLEL_RUNS: usize = 3;

/// Runs `run` on every profile of `profiles`, [`PARALLEL_RUNS`] at a time; a panic in any run
/// fails the test once all have stopped.
fn on_each(profiles: &[Profile], run: impl Fn(Profile) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL_RUNS.min(profiles.len()) {
            scope.spawn(|| {
                while let Some(&profile) = profiles.get(next.fetch_add(1, Ordering::Relaxed)) {
                    run(profile);
                }
            });
        }
    });
}

fn check(profile: Profile, summary: &str) {
    assert!(summary.contains(" 0 corrupt"), "{profile}: {summary}");
    assert!(!summary.contains("leftover"), "{profile}: {summary}");
    if profile.durability() == Durability::PowerLoss {
        assert!(summary.contains(" 0 lost"), "{profile}: {summary}");
    }
}

/// Power-cut mounts still mounted under `tmp` (crash-test makes its mount points in TMPDIR;
/// the mount table names them by their resolved path).
fn powercut_mounts(tmp: &Path) -> usize {
    let tmp = tmp.canonicalize().unwrap_or_else(|_| tmp.to_path_buf());
    let under = format!("{}/triebench-powercut-", tmp.display());
    std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(&under))
        .count()
}

#[test]
fn every_profile_survives_crashes_as_promised_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().expect("temp dir");
    on_each(&Profile::enabled(), |profile| {
        let summary = crash_test(profile, tmp.path(), &["--rounds", "3"]);
        check(profile, &summary);
    });
    let power_profiles: Vec<Profile> = Profile::enabled()
        .into_iter()
        .filter(|p| p.durability() == Durability::PowerLoss)
        .collect();
    match fuse_unavailable() {
        Some(reason) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("FUSE is unavailable under CI=true: {reason}")
        }
        Some(reason) => println!("skipped the power-cut rounds: {reason}"),
        None => {
            on_each(&power_profiles, |profile| {
                let summary = crash_test(profile, tmp.path(), &["--rounds", "2", "--power-loss"]);
                check(profile, &summary);
                assert!(summary.contains("power-loss: 2 rounds"), "{summary}");
            });
            assert_eq!(
                powercut_mounts(tmp.path()),
                0,
                "a power-cut mount was left behind"
            );
        }
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read TMPDIR")
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    assert!(left.is_empty(), "crash-test left {left:?} in TMPDIR");
    let sockets = dead_owners_server_dirs();
    assert!(
        sockets.is_empty(),
        "crash-test left managed servers' socket directories: {sockets:?}"
    );
}

/// `/tmp/triebench-{redis,pg}-<pid>-*`: private socket directories of managed servers whose
/// owner `pid` is gone (issue 34: a killed round's child must not leave its socket behind).
fn dead_owners_server_dirs() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/tmp") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| {
            let rest = name
                .strip_prefix("triebench-redis-")
                .or_else(|| name.strip_prefix("triebench-pg-"));
            rest.and_then(|r| r.split_once('-'))
                .and_then(|(pid, _)| pid.parse::<u32>().ok())
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
        })
        .collect()
}
