//! Issue 48, item 2: `report --runs` and `export-run` copy plain files and directories only.
//! A symbolic link in a run folder (or in a criterion baseline being exported) is refused with
//! one line naming it and its target's bytes never reach the output; a FIFO in a run folder is
//! refused instead of making the report wait for ever; a refused report leaves no `.new-*`
//! folder behind.

mod common;
use common::{copy_dir, export, repo};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A secret only this test's user can read.
const SECRET: &str = "SECRET-TOKEN-48";

/// Runs the built `triebench` with `args`, killed after a generous `limit` (a hang is the
/// failure this file guards against, not a timing): returns (finished, status ok, stderr).
fn triebench_within(args: &[&str], limit: Duration) -> (bool, bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run triebench");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let out = child.wait_with_output().expect("stderr");
            return (
                true,
                status.success(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return (false, false, String::new());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A run folder exported from the fixtures, with a secret file beside it.
fn run_folder(tmp: &Path) -> (PathBuf, PathBuf) {
    let crit = tmp.join("crit");
    copy_dir(&repo().join("fixtures/criterion"), &crit);
    let folder = export("host-a", "tmpfs", &crit, &tmp.join("runs"));
    let secret = tmp.join("secret");
    std::fs::write(&secret, SECRET).expect("secret");
    (folder, secret)
}

/// Every path below `dir` whose contents hold [`SECRET`].
fn copies_of_the_secret(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            found.extend(copies_of_the_secret(&path));
        } else if kind.is_file()
            && std::fs::read(&path).is_ok_and(|b| String::from_utf8_lossy(&b).contains(SECRET))
        {
            found.push(path);
        }
    }
    found
}

/// The `.NAME.new-*` staging folders left in `parent`.
fn staging_left(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .expect("read parent")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".new-"))
        .collect()
}

fn report(folder: &Path, out: &Path) -> (bool, bool, String) {
    triebench_within(
        &[
            "report",
            "--runs",
            &folder.display().to_string(),
            "--out",
            &out.display().to_string(),
        ],
        Duration::from_secs(300),
    )
}

#[test]
fn report_refuses_a_link_in_a_run_folder_and_copies_nothing_through_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (folder, secret) = run_folder(tmp.path());
    let link = folder.join("criterion/triebench-runs/evil.json");
    std::os::unix::fs::symlink(&secret, &link).expect("plant link");
    let out_parent = tmp.path().join("reports");
    let out = out_parent.join("merged");
    let (finished, ok, stderr) = report(&folder, &out);
    assert!(finished, "report did not finish");
    assert!(!ok, "report copied a run folder holding a link");
    assert!(
        stderr.contains("evil.json") && stderr.contains("symbolic link"),
        "the error does not name the link: {stderr}"
    );
    assert_eq!(copies_of_the_secret(&out_parent), Vec::<PathBuf>::new());
    assert_eq!(staging_left(&out_parent), Vec::<String>::new());
}

#[test]
fn report_refuses_a_fifo_in_a_run_folder_without_waiting() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (folder, _) = run_folder(tmp.path());
    let fifo = folder.join("criterion/triebench-runs/stuck.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let out_parent = tmp.path().join("reports");
    let out = out_parent.join("merged");
    let (finished, ok, stderr) = report(&folder, &out);
    assert!(finished, "report waited on the FIFO");
    assert!(!ok, "report copied a FIFO");
    assert!(
        stderr.contains("stuck.json") && stderr.contains("FIFO"),
        "the error does not name the FIFO: {stderr}"
    );
    assert_eq!(staging_left(&out_parent), Vec::<String>::new());
}

#[test]
fn export_run_refuses_a_link_in_a_criterion_baseline() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let crit = tmp.path().join("crit");
    copy_dir(&repo().join("fixtures/criterion"), &crit);
    let secret = tmp.path().join("secret");
    std::fs::write(&secret, SECRET).expect("secret");
    // A link among one benchmark's `tmpfs` baseline files.
    let baseline = crit.join("scenario_suite");
    let tmpfs = std::fs::read_dir(&baseline)
        .expect("read bench")
        .flatten()
        .map(|e| e.path().join("tmpfs"))
        .find(|p| p.is_dir())
        .expect("a tmpfs baseline");
    std::os::unix::fs::symlink(&secret, tmpfs.join("evil.json")).expect("plant link");
    let runs = tmp.path().join("runs");
    let (finished, ok, stderr) = triebench_within(
        &[
            "export-run",
            "tmpfs",
            "--criterion-dir",
            &crit.display().to_string(),
            "--out",
            &runs.display().to_string(),
            "--host",
            "host-a",
        ],
        Duration::from_secs(300),
    );
    assert!(finished);
    assert!(!ok, "export-run copied through a link");
    assert!(
        stderr.contains("evil.json") && stderr.contains("symbolic link"),
        "the error does not name the link: {stderr}"
    );
    assert_eq!(copies_of_the_secret(&runs), Vec::<PathBuf>::new());
}
