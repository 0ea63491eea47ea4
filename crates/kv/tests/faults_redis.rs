//! Failure behaviour of the Redis backend: a missing `redis-server`, a server killed mid-run, a
//! `REDIS_URL` that points nowhere, an unusable directory. Every failure is a typed error that
//! names its cause; nothing panics. (No test bounds how long a failure takes: a hang is caught
//! by the test command's timeout, and libtest names the test that runs on.)
#![cfg(feature = "redis-db")]

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use triebench_kv::redis::{RedisOptions, RedisServer, RedisStore};
use triebench_kv::{KvError, KvResult, ReadTx, Store, WriteTx};
use triebench_kv_conformance::TABLES;

/// Set in the child process that runs `open_without_redis_server_on_path_child`.
const CHILD_ENV: &str = "TRIEBENCH_REDIS_FAULT_CHILD";

fn open(dir: &Path, url: Option<&str>) -> KvResult<RedisStore> {
    RedisStore::open(
        dir,
        TABLES,
        RedisOptions {
            url: url.map(str::to_string),
            append_only: false,
            ..RedisOptions::default()
        },
    )
}

fn assert_missing(err: &KvError) {
    assert!(matches!(err, KvError::RedisServerMissing), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("redis-server") && msg.contains("REDIS_URL"),
        "{msg}"
    );
}

#[test]
fn missing_redis_server_is_a_typed_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let empty_bin = tempfile::tempdir().expect("temp dir");
    let err = RedisServer::start_with_path(dir.path(), false, Some(empty_bin.path().as_os_str()))
        .expect_err("started without redis-server on PATH");
    assert_missing(&err);
    let err = RedisServer::start_with_path(dir.path(), true, None).expect_err("no PATH at all");
    assert_missing(&err);
}

/// `RedisStore::open` itself, in a child process whose `PATH` holds no `redis-server` (changing
/// `PATH` here would race with the tests running in parallel).
#[test]
fn open_without_redis_server_on_path() {
    let empty_bin = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test executable");
    let output = std::process::Command::new(exe)
        .args([
            "--exact",
            &crate::test_name(module_path!(), "open_without_redis_server_on_path_child"),
            "--nocapture",
        ])
        .env(CHILD_ENV, "1")
        .env("PATH", empty_bin.path())
        .output()
        .expect("run child test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("child: RedisServerMissing"), "{stdout}");
}

/// The child half of [`open_without_redis_server_on_path`]; does nothing in a normal run.
#[test]
fn open_without_redis_server_on_path_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let err = open(dir.path(), None).expect_err("opened without redis-server");
    assert_missing(&err);
    println!("child: RedisServerMissing: {err}");
}

/// A fake `redis-server` that exits at once: the start error quotes its output.
#[test]
#[cfg(unix)]
fn server_that_dies_at_start_reports_its_log() {
    use std::os::unix::fs::PermissionsExt;
    // As root the server runs as an unprivileged user, which must be able to reach the fake
    // binary: a 0755 directory under /tmp, not under TMPDIR (scripts/test.sh's is 0700).
    let bin = tempfile::Builder::new()
        .prefix("triebench-fake-redis-")
        .tempdir_in("/tmp")
        .expect("temp dir");
    std::fs::set_permissions(bin.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let fake = bin.path().join("redis-server");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'fake server: refusing to start' >&2\nexit 3\n",
    )
    .expect("write fake");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let dir = tempfile::tempdir().expect("temp dir");
    let err = RedisServer::start_with_path(dir.path(), false, Some(OsStr::new(bin.path())))
        .expect_err("fake server started");
    let msg = err.to_string();
    assert!(matches!(err, KvError::RedisServerStart(_)), "{err:?}");
    assert!(msg.contains("refusing to start"), "{msg}");
}

/// Kills the process with SIGKILL by its pid, as an outside actor would, and waits until it is
/// gone (however long that takes).
fn kill_by_pid(server: &RedisServer) {
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("kill -9 {}", server.pid()))
        .status()
        .expect("run kill");
    assert!(status.success(), "kill failed");
    while server.is_running() {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn managed_server_killed_mid_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path(), None).expect("open");
    let t = store.table("main").expect("t");
    let mut w = store.writer().expect("writer");
    w.put(t, b"k", b"v").expect("put");
    w.commit().expect("commit");
    let reader = store.reader().expect("reader");
    assert_eq!(
        reader.get(t, b"k").expect("get").as_deref(),
        Some(&b"v"[..])
    );
    let mut writer = store.writer().expect("writer");
    writer.put(t, b"k2", b"v2").expect("put");

    let server = store.server().expect("managed");
    kill_by_pid(server);

    // Open transactions fail on their next round trip.
    let err = reader.get(t, b"k").expect_err("read from a dead server");
    assert!(matches!(err, KvError::Backend { .. }), "{err:?}");
    assert!(reader.count(t).is_err());
    assert!(reader.collect(t, &triebench_kv::KeyRange::all()).is_err());
    assert!(writer.get(t, b"k").is_err());
    let err = writer.commit().expect_err("commit to a dead server");
    let msg = err.to_string();
    assert!(msg.contains("redis"), "{msg}");
    drop(reader);

    // New transactions are refused, naming the dead server.
    let err = store.reader().expect_err("reader on a dead server");
    let msg = err.to_string();
    assert!(
        msg.contains("has exited") && msg.contains("redis-server.log"),
        "{msg}"
    );
    assert!(store.writer().is_err());
}

#[test]
fn server_by_url_killed_mid_run() {
    let server_dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(server_dir.path(), false).expect("start");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path(), Some(server.url())).expect("open");
    let t = store.table("main").expect("t");
    let mut w = store.writer().expect("writer");
    w.put(t, b"k", b"v").expect("put");
    w.commit().expect("commit");
    assert!(store
        .reader()
        .expect("reader")
        .contains(t, b"k")
        .expect("get"));

    server.kill().expect("kill");
    assert!(!server.is_running());
    // A pooled connection is reused without a round trip, so the failure may surface at the
    // first read instead of at `reader()`; either way it is an error, not a hang.
    let read = store.reader().and_then(|r| r.get(t, b"k"));
    let err = read.expect_err("read from a dead server");
    let msg = err.to_string();
    // The message names the server's socket, and not its password (issue 34).
    let password = server.url().rsplit_once("pass=").expect("a password").1;
    assert!(
        msg.contains(&server.socket_path().display().to_string()) && msg.contains("REDIS_URL"),
        "{msg}"
    );
    assert!(!msg.contains(password), "the password was printed: {msg}");
    let commit = store.writer().and_then(|mut w| {
        w.put(t, b"k", b"v2")?;
        w.commit()
    });
    assert!(commit.is_err());
    // Later calls reconnect and fail the same way.
    assert!(store.reader().and_then(|r| r.count(t)).is_err());
}

#[test]
fn redis_url_to_a_closed_port_is_refused() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let url = format!("redis://127.0.0.1:{port}/");
    let dir = tempfile::tempdir().expect("temp dir");
    let err = open(dir.path(), Some(&url)).expect_err("opened with nothing listening");
    let msg = err.to_string();
    assert!(matches!(err, KvError::Backend { .. }), "{err:?}");
    assert!(msg.contains(&url) && msg.contains("REDIS_URL"), "{msg}");

    let err = open(dir.path(), Some("not a url")).expect_err("opened with a bad URL");
    let msg = err.to_string();
    assert!(
        msg.contains("not a url") && msg.contains("REDIS_URL"),
        "{msg}"
    );
}

#[test]
fn unwritable_directory_is_an_io_error() {
    let parent = tempfile::NamedTempFile::new().expect("temp file");
    let dir = parent.path().join("store");
    let err = open(&dir, None).expect_err("opened under a regular file");
    assert!(matches!(err, KvError::Io { .. }), "{err:?}");
    let err = open(&dir, Some("redis://127.0.0.1:1/")).expect_err("opened under a regular file");
    assert!(matches!(err, KvError::Io { .. }), "{err:?}");
    let err = RedisServer::start(&dir, true).expect_err("server under a regular file");
    assert!(matches!(err, KvError::Io { .. }), "{err:?}");
}
