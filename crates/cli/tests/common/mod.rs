//! What the CLI tests over run folders share: the repository's root, copying a fixture tree,
//! running the built `triebench`, and exporting a run folder with it; [`crash`]: running
//! `triebench crash-test`.

#![allow(dead_code)] // each test binary uses a different part of this module

pub mod crash;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root (the fixtures are under it).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Copies the tree `from` to `to`, creating `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Runs the built `triebench` with `args`.
pub fn triebench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .output()
        .expect("run triebench")
}

/// Runs `triebench export-run` as host `host`; returns the run folder it made.
pub fn export(host: &str, name: &str, criterion: &Path, parent: &Path) -> PathBuf {
    let out = triebench(&[
        "export-run",
        name,
        "--criterion-dir",
        &criterion.display().to_string(),
        "--out",
        &parent.display().to_string(),
        "--host",
        host,
    ]);
    assert!(
        out.status.success(),
        "export-run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
