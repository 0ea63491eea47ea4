//! Bad input and what a killed run leaves (issue 34, item 8): error messages quote at most about
//! 100 bytes of a bad input, `triebench root` checks its whole input before it creates a store,
//! and `triebench load` removes the temporary store directories of load runs that were killed.

use std::path::Path;
use std::process::{Command, Output};

fn triebench(args: &[&str], tmpdir: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_triebench"));
    cmd.args(args);
    if let Some(dir) = tmpdir {
        cmd.env("TMPDIR", dir);
    }
    cmd.output().expect("triebench runs")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

#[test]
fn a_huge_bad_input_is_not_echoed_whole() {
    let work = tempfile::tempdir().expect("temp dir");
    let huge = "g".repeat(2 << 20);
    let long_valid = "ab".repeat(4000);
    let lines = [
        // Not hex, and past the longest address.
        format!(r#"{{"set": {{"{huge}": "00"}}}}"#),
        // A delete list that is a string: serde quotes it in its message.
        format!(r#"{{"delete": "{huge}"}}"#),
        // A valid 8000-character address whose value is not hex.
        format!(r#"{{"set": {{"{long_valid}": "zz"}}}}"#),
        // The same address twice.
        format!(r#"{{"set": {{"{long_valid}": "00", "{long_valid}": "01"}}}}"#),
    ];
    for (n, line) in lines.iter().enumerate() {
        let file = work.path().join(format!("bad-{n}.jsonl"));
        std::fs::write(&file, line).expect("write commit file");
        let o = triebench(&["root", path(&file)], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "case {n}: {err}");
        assert!(err.contains("line 1"), "case {n}: {err}");
        assert!(
            err.len() < 600,
            "case {n}: {} bytes of error: {}...",
            err.len(),
            &err[..600.min(err.len())]
        );
        assert!(err.contains("bytes in all"), "case {n}: {err}");
    }
}

#[test]
fn root_checks_its_input_before_it_creates_a_store() {
    let work = tempfile::tempdir().expect("temp dir");
    let file = work.path().join("bad.jsonl");
    std::fs::write(
        &file,
        "{\"set\": {\"abcd\": \"00\"}}\n{\"set\": {\"xyz\": \"00\"}}\n",
    )
    .expect("write commit file");
    let store = work.path().join("store");
    let o = triebench(
        &[
            "root",
            "--backend",
            "lmdb",
            "--dir",
            path(&store),
            path(&file),
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("line 2"), "{err}");
    assert!(
        !store.exists(),
        "the store was created before the input was read"
    );
    // A good file then replays as before.
    std::fs::write(&file, "{\"set\": {\"abcd\": \"646174615f76616c7565\"}}\n").expect("write");
    let o = triebench(
        &[
            "root",
            "--backend",
            "lmdb",
            "--dir",
            path(&store),
            path(&file),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870\n"
    );
}

#[test]
fn load_removes_the_temporary_directories_of_killed_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // A pid that is no process any more.
    let mut gone = Command::new("true").spawn().expect("spawn true");
    let dead = gone.id();
    gone.wait().expect("wait true");
    let stale = tmp.path().join(format!("triebench-load-{dead}-abc123"));
    std::fs::create_dir_all(stale.join("lmdb")).expect("mkdir");
    std::fs::write(stale.join("lmdb/data.mdb"), b"left by a killed run").expect("write");
    // Left alone: a live run's, one kept for inspection, an older name without a pid, and a
    // symbolic link.
    let live = tmp
        .path()
        .join(format!("triebench-load-{}-def456", std::process::id()));
    std::fs::create_dir(&live).expect("mkdir");
    let kept = tmp.path().join(format!("triebench-load-{dead}-kept01"));
    std::fs::create_dir(&kept).expect("mkdir");
    std::fs::write(kept.join("kept-for-inspection"), b"").expect("write");
    let old = tmp.path().join("triebench-load-Xy12ab");
    std::fs::create_dir(&old).expect("mkdir");
    let target = tmp.path().join("elsewhere");
    std::fs::create_dir(&target).expect("mkdir");
    std::fs::write(target.join("keep-me"), b"").expect("write");
    let link = tmp.path().join(format!("triebench-load-{dead}-link01"));
    std::os::unix::fs::symlink(&target, &link).expect("symlink");

    let out = tmp.path().join("out");
    let o = triebench(
        &[
            "load",
            "--backend",
            "lmdb",
            "--state-size",
            "100",
            "--readers",
            "0",
            "--rate",
            "20",
            "--duration",
            "1s",
            "--no-plots",
            "--out",
            path(&out),
        ],
        Some(tmp.path()),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!stale.exists(), "{err}");
    assert!(err.contains("left by a load run that was killed"), "{err}");
    for kept in [&live, &kept, &old, &link] {
        assert!(
            std::fs::symlink_metadata(kept).is_ok(),
            "{} removed",
            kept.display()
        );
    }
    assert!(target.join("keep-me").exists());
    // This run's own directory is gone too.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("triebench-load-"))
        .collect();
    assert_eq!(left.len(), 4, "{left:?}");
}
