//! Every command that is given a directory makes it when it is missing, as `grow` and `root`
//! always did (`headline --dir NEWDIR` used to stop at its fsync probe, `phases` at its first
//! store, `capture-fs` at its first look, `root --flamegraph` after the whole replay), and a
//! directory that cannot be made (a path under a regular file) is one clear line and exit 1,
//! before anything is measured.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn triebench(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("triebench runs");
    // `root` reads its commits from standard input: one commit that sets one leaf.
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let leaf = format!("{{\"set\": {{\"{}\": \"0a\"}}}}\n", "ab".repeat(35));
        let _ = stdin.write_all(leaf.as_bytes());
    }
    child.wait_with_output().expect("triebench ends")
}

/// Runs `args`, which must succeed, and returns its standard error.
fn succeeds(args: &[&str]) -> String {
    let o = triebench(args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{args:?} failed: {err}");
    err
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

#[test]
fn headline_makes_a_missing_dir() {
    let work = tempfile::tempdir().expect("temp dir");
    let dir = work.path().join("new/fs");
    let crit = work.path().join("criterion");
    succeeds(&[
        "headline",
        "--dir",
        path(&dir),
        "--run",
        "made",
        "--profiles",
        "btree",
        "--max-rounds",
        "1",
        "--budget",
        "0",
        "--criterion-dir",
        path(&crit),
    ]);
    assert!(dir.is_dir());
    assert!(crit
        .join("triebench-runs/records/made/headline.json")
        .is_file());
}

#[test]
fn phases_capture_fs_and_root_make_theirs() {
    let work = tempfile::tempdir().expect("temp dir");
    let crit = work.path().join("criterion");
    let phases_dir = work.path().join("phases/fs");
    succeeds(&[
        "phases",
        "--dir",
        path(&phases_dir),
        "--run",
        "made",
        "--profiles",
        "btree",
        "--cpu-idle",
        "os",
        "--criterion-dir",
        path(&crit),
    ]);
    assert!(phases_dir.is_dir());
    let capture_dir = work.path().join("capture/fs");
    succeeds(&[
        "capture-fs",
        "made",
        path(&capture_dir),
        "--no-latency",
        "--criterion-dir",
        path(&crit),
    ]);
    assert!(capture_dir.is_dir());
    // The flamegraph's folder used to be found missing only after the whole replay.
    let svg = work.path().join("svg/deep/root.svg");
    let store = work.path().join("root/store");
    succeeds(&[
        "root",
        "--backend",
        "lmdb",
        "--dir",
        path(&store),
        "--flamegraph",
        path(&svg),
    ]);
    assert!(svg.is_file());
    assert!(store.is_dir());
}

#[test]
fn a_directory_under_a_regular_file_is_one_clear_error() {
    let work = tempfile::tempdir().expect("temp dir");
    let file = work.path().join("a-file");
    std::fs::write(&file, b"x").expect("file");
    let under = file.join("sub");
    let under = path(&under);
    let svg = file.join("f.svg");
    let crit = work.path().join("criterion");
    let out = work.path().join("out");
    let disk = format!("disk={under}");
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "headline",
            "--run",
            "r",
            "--profiles",
            "btree",
            "--dir",
            under,
        ],
        vec!["phases", "--profiles", "btree", "--dir", under],
        vec!["capture-fs", "r", under, "--no-latency"],
        vec!["root", "--backend", "lmdb", "--dir", under],
        vec!["root", "--flamegraph", path(&svg)],
        vec![
            "load",
            "--backend",
            "lmdb",
            "--out",
            path(&out),
            "--dir",
            under,
        ],
        vec!["grow", "--backend", "lmdb", "--dir", under],
        vec!["crash-test", "--backend", "lmdb", "--dir", under],
        vec!["crash-test", "--backend", "lmdb", "--out", under],
        vec!["bench", &disk, "--scale", "quick", "--iolab", "none"],
        vec![
            "bench", "--export", under, "--scale", "quick", "--iolab", "none",
        ],
    ];
    for mut args in cases {
        args.extend_from_slice(&["--criterion-dir", path(&crit)]);
        if args[0] == "crash-test" || args[0] == "root" || args[0] == "load" || args[0] == "grow" {
            // These have no criterion directory.
            args.truncate(args.len() - 2);
        }
        let o = triebench(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // One line saying what and why; `bench` prints its plan first.
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {err}");
        assert_eq!(err.lines().last(), Some(errors[0]), "{args:?}: {err}");
        assert!(
            errors[0].contains("cannot create the directory")
                && errors[0].contains("is a file, not a directory"),
            "{args:?}: {err}"
        );
        if args[0] != "bench" {
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        }
    }
    assert!(!crit.join("triebench-runs/records").exists());
}
