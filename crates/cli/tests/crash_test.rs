//! `triebench crash-test` end to end: a few process-crash rounds on every profile this build
//! has, and a power-cut round on each durable one (slowfs power-loss mode; skipped without
//! FUSE, except under `CI=true`, where that fails). Durable profiles must lose nothing, no
//! profile may be corrupt, and the rounds leave no processes, mounts or temporary directories.
//!
//! Its managed servers make their private socket directories in a directory of the test's own
//! (TRIEBENCH_SERVER_DIRS), not /tmp: the leftover check then sees this test's servers alone,
//! and servers other tests start beside it (which remove dead owners' directories in /tmp)
//! cannot hide what a crash round left. Inside, the profiles run a few at a time
//! ([`PARALLEL_RUNS`]): each run mostly waits on servers and fsyncs.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::crash::{fuse_unavailable, run_crash_test_in};
use triebench_kv::{Durability, Profile};

/// The crash runs' TMPDIR and the directory their servers' socket directories go in.
struct Dirs {
    tmp: tempfile::TempDir,
    servers: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Dirs {
        // Short (a socket's address holds it) and enterable by the servers' user (run as root,
        // they run as another).
        let servers = tempfile::Builder::new()
            .prefix("tbsd-")
            .tempdir_in("/tmp")
            .expect("server dirs");
        std::fs::set_permissions(servers.path(), std::fs::Permissions::from_mode(0o711))
            .expect("chmod server dirs");
        Dirs {
            tmp: tempfile::tempdir().expect("temp dir"),
            servers,
        }
    }
}

/// Runs crash-test on `profile` with a private TMPDIR and returns its summary (stdout).
fn crash_test(profile: Profile, dirs: &Dirs, extra: &[&str]) -> String {
    let mut args = vec![
        "--backend",
        profile.name(),
        "--seed",
        "7",
        "--max-crash-ms",
        "120",
    ];
    args.extend(extra);
    run_crash_test_in(dirs.tmp.path(), Some(dirs.servers.path()), &args)
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
    let dirs = Dirs::new();
    let tmp = dirs.tmp.path();
    on_each(&Profile::enabled(), |profile| {
        let summary = crash_test(profile, &dirs, &["--rounds", "3"]);
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
                let summary = crash_test(profile, &dirs, &["--rounds", "2", "--power-loss"]);
                check(profile, &summary);
                assert!(summary.contains("power-loss: 2 rounds"), "{summary}");
            });
            assert_eq!(powercut_mounts(tmp), 0, "a power-cut mount was left behind");
        }
    }
    let left: Vec<_> = std::fs::read_dir(tmp)
        .expect("read TMPDIR")
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    assert!(left.is_empty(), "crash-test left {left:?} in TMPDIR");
    // Every server has stopped: whatever is left in their directory was left behind.
    let sockets: Vec<_> = std::fs::read_dir(dirs.servers.path())
        .expect("read the server dirs")
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    assert!(
        sockets.is_empty(),
        "crash-test left managed servers' socket directories: {sockets:?}"
    );
}
