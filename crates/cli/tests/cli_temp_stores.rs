//! Issue 48, item 4: every store is readable by its owner alone (0700 directories, 0600 files:
//! LMDB, `lmdb-async`, SQLite with its `-wal`/`-shm`), a `triebench root` stopped by SIGTERM or
//! Ctrl-C removes its temporary store (a `load` so stopped too), and one killed with SIGKILL is
//! removed by the next run.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A commit file of `n` one-key commits.
fn commits(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::with_capacity(n * 40);
    for i in 0..n {
        text.push_str(&format!("{{\"set\": {{\"{:08x}\": \"00\"}}}}\n", i));
    }
    let file = dir.join("commits.jsonl");
    std::fs::write(&file, text).expect("write commits");
    file
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("stat {}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// Every file and directory below `dir` whose mode lets its group or others read it.
fn readable_by_others(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if mode(&path) & 0o077 != 0 {
            found.push(format!("{} {:o}", path.display(), mode(&path)));
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(readable_by_others(&path));
        }
    }
    found
}

/// The `triebench-root-*` directories in `tmp`.
fn root_dirs(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .expect("read TMPDIR")
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("triebench-root-")
        })
        .map(|e| e.path())
        .collect()
}

/// Starts `root` on a long commit file with `TMPDIR=tmp`, waits for its first root (its store
/// is open), checks what others may read of it, stops it with `signal` and returns the
/// temporary directories left.
fn stop_root_with(signal: libc::c_int, backend: &str) -> Vec<PathBuf> {
    let work = tempfile::tempdir().expect("temp dir");
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).expect("mkdir tmp");
    let file = commits(work.path(), 200_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(["root", "--backend", backend])
        .arg(&file)
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run triebench root");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let first = lines.next();
    assert!(
        matches!(first, Some(Ok(_))),
        "root printed no root: {first:?}"
    );
    let dirs = root_dirs(&tmp);
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert_eq!(mode(&dirs[0]), 0o700, "{}", dirs[0].display());
    let open = readable_by_others(&dirs[0]);
    // SAFETY: kill on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    drop(lines);
    let _ = child.wait();
    assert_eq!(open, Vec::<String>::new(), "store files others can read");
    root_dirs(&tmp)
}

#[test]
fn root_stopped_by_sigterm_removes_its_private_sqlite_store() {
    let left = stop_root_with(libc::SIGTERM, "sqlite-wal-full");
    assert_eq!(left, Vec::<PathBuf>::new(), "SIGTERM left the store");
}

#[test]
fn root_stopped_by_ctrl_c_removes_its_private_lmdb_async_store() {
    let left = stop_root_with(libc::SIGINT, "lmdb-async");
    assert_eq!(left, Vec::<PathBuf>::new(), "Ctrl-C left the store");
}

#[test]
fn a_named_store_is_readable_by_its_owner_alone() {
    let work = tempfile::tempdir().expect("temp dir");
    let file = commits(work.path(), 20);
    for backend in ["lmdb", "lmdb-async", "sqlite-wal"] {
        let dir = work.path().join(backend);
        let out = Command::new(env!("CARGO_BIN_EXE_triebench"))
            .args(["root", "--backend", backend, "--dir"])
            .arg(&dir)
            .arg(&file)
            .output()
            .expect("run triebench root");
        assert!(
            out.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            readable_by_others(&dir),
            Vec::<String>::new(),
            "{backend}: store files others can read"
        );
    }
}

#[test]
fn a_killed_roots_store_is_removed_by_the_next_run() {
    let work = tempfile::tempdir().expect("temp dir");
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).expect("mkdir tmp");
    // What a root run killed with SIGKILL leaves: its pid is gone (pids stay below 2^22).
    let left = tmp.join("triebench-root-99999999-abcdef");
    std::fs::create_dir(&left).expect("mkdir leftover");
    std::fs::write(left.join("triebench.sqlite"), b"data").expect("leftover file");
    // A live run's directory (this test's pid) stays.
    let live = tmp.join(format!("triebench-root-{}-abcdef", std::process::id()));
    std::fs::create_dir(&live).expect("mkdir live");
    let file = commits(work.path(), 2);
    let out = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(["root", "--backend", "sqlite-wal"])
        .arg(&file)
        .env("TMPDIR", &tmp)
        .output()
        .expect("run triebench root");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!left.exists(), "the killed run's store was not removed");
    assert!(live.exists(), "a live run's store was removed");
}

#[test]
fn load_stopped_by_sigterm_removes_its_private_store() {
    let work = tempfile::tempdir().expect("temp dir");
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).expect("mkdir tmp");
    let mut child = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(["load", "--backend", "sqlite-wal", "--state-size", "2000"])
        .args(["--duration", "120s", "--out"])
        .arg(work.path().join("out"))
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run triebench load");
    let load_dirs = || -> Vec<PathBuf> {
        std::fs::read_dir(&tmp)
            .expect("read TMPDIR")
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("triebench-load-")
            })
            .map(|e| e.path())
            .collect()
    };
    // Until its store holds a file (the preload has begun), or the run is over.
    let dir = loop {
        if let Some(dir) = load_dirs()
            .into_iter()
            .find(|d| std::fs::read_dir(d).is_ok_and(|mut it| it.next().is_some()))
        {
            break dir;
        }
        assert!(
            child.try_wait().expect("wait").is_none(),
            "load ended before its store was made"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    let open = readable_by_others(&dir);
    // SAFETY: kill on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let _ = child.wait();
    assert_eq!(open, Vec::<String>::new(), "store files others can read");
    assert_eq!(load_dirs(), Vec::<PathBuf>::new(), "SIGTERM left the store");
}
