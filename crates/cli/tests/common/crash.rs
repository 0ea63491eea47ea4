//! What the crash-test CLI tests share: running `triebench crash-test` with a private TMPDIR
//! and checking its exit status, and whether FUSE (for slowfs) is there.

use std::path::Path;
use std::process::Command;

/// Runs `triebench crash-test ARGS` with TMPDIR=`tmp`; returns its stdout (the summary), after
/// asserting it succeeded (quoting both streams when not).
pub fn run_crash_test(tmp: &Path, args: &[&str]) -> String {
    run_crash_test_in(tmp, None, args)
}

/// [`run_crash_test`], its managed servers' private directories made in `server_dirs`
/// (TRIEBENCH_SERVER_DIRS) when given.
pub fn run_crash_test_in(tmp: &Path, server_dirs: Option<&Path>, args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_triebench"));
    command.arg("crash-test").args(args).env("TMPDIR", tmp);
    if let Some(dir) = server_dirs {
        command.env(triebench_kv::SERVER_DIRS_VAR, dir);
    }
    let out = command.output().expect("run triebench crash-test");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "crash-test {args:?} failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Why slowfs cannot mount here, if it cannot.
pub fn fuse_unavailable() -> Option<String> {
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/fuse")
    {
        Ok(_) => None,
        Err(e) => Some(format!("cannot open /dev/fuse: {e}")),
    }
}

/// True (with a note) when FUSE is missing and the test should skip; under `CI=true` a
/// missing FUSE fails instead.
pub fn skip_without_fuse() -> bool {
    let Some(reason) = fuse_unavailable() else {
        return false;
    };
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "FUSE is unavailable under CI=true: {reason}"
    );
    println!("skipped: {reason}");
    true
}
