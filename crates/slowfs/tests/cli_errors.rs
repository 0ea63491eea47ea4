//! The slowfs binary refuses bad paths and names with one clear message and a non-zero exit.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_slowfs");

/// Runs slowfs with `args`; returns (exit code, stderr). It must fail without panicking.
fn run_failing(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new(BIN).args(args).output().expect("run slowfs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "slowfs succeeded: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn missing_backing_directory() {
    let mnt = tempfile::tempdir().unwrap();
    let missing = mnt.path().join("nope");
    let (code, err) = run_failing(&[missing.as_os_str(), mnt.path().as_os_str()]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("slowfs: error: backing directory") && err.contains("does not exist"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn backing_that_is_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    let mnt = tempfile::tempdir().unwrap();
    let (_, err) = run_failing(&[file.as_os_str(), mnt.path().as_os_str()]);
    assert!(err.contains("not a directory"), "{err}");
}

#[test]
fn missing_mount_point() {
    let backing = tempfile::tempdir().unwrap();
    let missing = backing.path().join("..").join("slowfs-no-such-dir-xyz");
    let (code, err) = run_failing(&[backing.path().as_os_str(), missing.as_os_str()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("mount point") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn non_empty_mount_point() {
    let backing = tempfile::tempdir().unwrap();
    let mnt = tempfile::tempdir().unwrap();
    std::fs::write(mnt.path().join("occupied"), b"x").unwrap();
    let (code, err) = run_failing(&[backing.path().as_os_str(), mnt.path().as_os_str()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("mount point") && err.contains("not empty"),
        "{err}"
    );
}

#[test]
fn mount_point_that_is_already_a_mount() {
    let backing = tempfile::tempdir().unwrap();
    let (_, err) = run_failing(&[backing.path().as_os_str(), "/proc".as_ref()]);
    assert!(err.contains("already a mount point"), "{err}");
}

#[test]
fn unknown_profile_and_bad_delay() {
    let backing = tempfile::tempdir().unwrap();
    let mnt = tempfile::tempdir().unwrap();
    let paths = [backing.path().as_os_str(), mnt.path().as_os_str()];
    let (_, err) = run_failing(&[&["--profile".as_ref(), "s3".as_ref()][..], &paths].concat());
    assert!(
        err.contains("unknown profile `s3`") && err.contains("efs"),
        "{err}"
    );
    let (_, err) = run_failing(&[&["--sync-us=-5".as_ref()][..], &paths].concat());
    assert!(err.contains("sync"), "{err}");
}

#[test]
fn help_and_profile_list() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "metadata",
        "fsync",
        "efs",
        "2.7 milliseconds",
        "nfs-lan",
        ".slowfs-stats",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}");
    }
    let out = Command::new(BIN).arg("--list-profiles").output().unwrap();
    assert!(out.status.success());
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.contains("none") && list.contains("efs") && list.contains("nfs-lan"));
}
