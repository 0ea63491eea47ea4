//! Without `--criterion-dir`, `triebench report` reads criterion's output where criterion wrote
//! it: `$CRITERION_HOME`, a target directory set in cargo's configuration, else
//! `target/criterion`. It used to look in `target/criterion` whatever criterion had done.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/criterion")
        .canonicalize()
        .expect("fixtures/criterion")
}

/// `triebench report` over the fixture's two runs, with no `--criterion-dir`, in `cwd`, with
/// the target-directory variables removed and then `env` set.
fn report(cwd: &Path, out: &Path, env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_triebench"));
    cmd.current_dir(cwd)
        .args([
            "report",
            "--baseline",
            "tmpfs",
            "--runs",
            "tmpfs",
            "disk",
            "--out",
        ])
        .arg(out)
        .env_remove("CRITERION_HOME")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("triebench runs")
}

fn assert_made(o: &Output, out: &Path) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("report.md").is_file());
}

#[test]
fn criterion_home_is_read_first() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let o = report(tmp.path(), &out, &[("CRITERION_HOME", &fixtures())]);
    assert_made(&o, &out);
}

/// Cargo's `build.target-dir` (here through its variable) moves criterion's output; the report
/// asks cargo, from inside the workspace, where the target directory is.
#[test]
fn a_target_dir_from_cargo_configuration_is_followed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let target = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&target).expect("mkdir");
    std::os::unix::fs::symlink(fixtures(), target.join("criterion")).expect("symlink");
    let out = tmp.path().join("out");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = report(workspace, &out, &[("CARGO_BUILD_TARGET_DIR", &target)]);
    assert_made(&o, &out);
}

#[test]
fn outside_a_workspace_the_error_names_target_criterion() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let o = report(tmp.path(), &tmp.path().join("out"), &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("target/criterion not found"), "{err}");
}
