//! Issue 34, Redis: a managed redis-server is reachable only by its owner (no TCP port, a
//! private socket directory, a password), does not run as root, follows no planted link in the
//! directory under test, leaves no socket behind a SIGKILLed owner, and no message prints a
//! credential of `REDIS_URL`.
#![cfg(all(feature = "redis-db", target_os = "linux"))]

mod common;

use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use common::{child_arg, kill_owner_of_a_server, listening_tcp_ports, mode, Stranger};
use triebench_kv::redis::{redact, RedisOptions, RedisServer, RedisStore};
use triebench_kv::KvError;
use triebench_kv_conformance::TABLES;

/// The stranger's half: tries every address in its argument (`unix:<path>` or `tcp:<port>`)
/// without a password and prints `reached <address>` for each that let it connect.
#[test]
fn stranger_child() {
    let Some(arg) = child_arg() else {
        return;
    };
    for target in arg.split(',').filter(|t| !t.is_empty()) {
        let url = if let Some(path) = target.strip_prefix("unix:") {
            format!("redis+unix://{path}")
        } else if let Some(port) = target.strip_prefix("tcp:") {
            format!("redis://127.0.0.1:{port}/")
        } else {
            continue;
        };
        let reached = redis::Client::open(url.as_str())
            .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(5)))
            .map(|mut con| redis::cmd("PING").query::<String>(&mut con));
        match reached {
            Ok(answer) => println!("reached {target}: {answer:?}"),
            Err(e) => println!("refused {target}: {e}"),
        }
    }
}

#[test]
fn another_local_user_cannot_reach_the_server() {
    let Some(stranger) = Stranger::create() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(dir.path(), false).expect("start");
    let mut targets = vec![format!("unix:{}", server.socket_path().display())];
    targets.extend(
        listening_tcp_ports(server.pid())
            .into_iter()
            .map(|p| format!("tcp:{p}")),
    );
    let out = stranger.run(
        &crate::test_name(module_path!(), "stranger_child"),
        &targets.join(","),
    );
    println!("as {}: {out}", stranger.name);
    assert!(
        !out.contains("reached"),
        "user {} reached the managed redis-server: {out}",
        stranger.name
    );
    assert!(out.contains("refused unix:"), "{out}");
}

#[test]
fn the_server_does_not_run_as_root_and_its_socket_dir_is_private() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(dir.path(), false).expect("start");
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).expect("status");
    let uid_line = status.lines().find(|l| l.starts_with("Uid:")).expect("Uid");
    if common::is_root() {
        assert!(
            uid_line.split_whitespace().skip(1).all(|u| u != "0"),
            "redis-server runs as root: {uid_line}"
        );
    }
    let private = server.private_dir();
    assert_eq!(mode(private), 0o700, "{}", private.display());
    assert_eq!(
        std::fs::metadata(private).expect("stat").uid(),
        server.uid(),
        "the socket directory belongs to the server's user"
    );
    assert!(server.socket_path().starts_with(private));
}

#[test]
fn no_tcp_port_listens_and_the_server_wants_a_password() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(dir.path(), false).expect("start");
    assert_eq!(
        listening_tcp_ports(server.pid()),
        Vec::<u16>::new(),
        "redis-server listens on TCP"
    );
    let mut con = redis::Client::open(server.url())
        .and_then(|c| c.get_connection())
        .expect("connect as the owner");
    let port: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("port")
        .query(&mut con)
        .expect("CONFIG GET port");
    assert_eq!(port, ["port", "0"]);
    // Without the password, even the owner's own connection is refused.
    let bare = format!("redis+unix://{}", server.socket_path().display());
    let mut con = redis::Client::open(bare.as_str())
        .and_then(|c| c.get_connection())
        .expect("connect without a password");
    let err = redis::cmd("PING")
        .query::<String>(&mut con)
        .expect_err("PING without the password");
    assert!(err.to_string().contains("NOAUTH"), "{err}");
    // The password is on no command line.
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.pid())).expect("cmdline");
    let password = server.url().rsplit_once("pass=").expect("password").1;
    assert!(!String::from_utf8_lossy(&cmdline).contains(password));
}

#[test]
fn a_planted_log_link_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, b"precious\n").expect("write victim");
    let before = std::fs::metadata(&victim).expect("stat");
    let link = dir.path().join("redis-server.log");
    std::os::unix::fs::symlink(&victim, &link).expect("plant link");
    let err = RedisServer::start(dir.path(), false).expect_err("started through a planted link");
    match &err {
        KvError::Planted { path, .. } => assert!(path.ends_with("redis-server.log"), "{err}"),
        other => panic!("not a Planted error: {other:?}"),
    }
    assert!(err.to_string().contains("redis-server.log"), "{err}");
    assert_eq!(std::fs::read(&victim).expect("read victim"), b"precious\n");
    let after = std::fs::metadata(&victim).expect("stat");
    assert_eq!((after.uid(), after.mode()), (before.uid(), before.mode()));
}

#[test]
fn a_planted_appendonlydir_link_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("appendonlydir"))
        .expect("plant link");
    let before = std::fs::metadata(elsewhere.path()).expect("stat");
    let err = RedisServer::start(dir.path(), true).expect_err("started through a planted link");
    assert!(matches!(err, KvError::Planted { .. }), "{err:?}");
    let after = std::fs::metadata(elsewhere.path()).expect("stat");
    assert_eq!((after.uid(), after.mode()), (before.uid(), before.mode()));
    assert_eq!(std::fs::read_dir(elsewhere.path()).expect("ls").count(), 0);
}

#[test]
fn store_files_are_private() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedisStore::open(
        dir.path(),
        TABLES,
        RedisOptions {
            url: None,
            append_only: true,
            ..RedisOptions::default()
        },
    )
    .expect("open");
    assert_eq!(mode(&dir.path().join("redis-server.log")), 0o600);
    let aof = dir.path().join("appendonlydir");
    assert_eq!(mode(&aof), 0o700);
    for entry in std::fs::read_dir(&aof).expect("ls") {
        let path = entry.expect("entry").path();
        assert_eq!(
            mode(&path) & 0o077,
            0,
            "{} is open to others",
            path.display()
        );
    }
    drop(store);
}

/// Set in the owner child: the directory to start the server in.
const OWNER_ENV: &str = "TRIEBENCH_SECURITY_REDIS_OWNER";

/// The owner's half: starts a server, prints its pid and private directory, waits to be
/// killed.
#[test]
fn owner_child() {
    let Some(dir) = std::env::var_os(OWNER_ENV) else {
        return;
    };
    match RedisServer::start(std::path::Path::new(&dir), false) {
        Ok(server) => {
            println!("server {} {}", server.pid(), server.private_dir().display());
            std::thread::sleep(Duration::from_secs(60));
            drop(server);
        }
        Err(e) => println!("failed: {e}"),
    }
}

#[test]
fn a_sigkilled_owner_leaves_no_socket_behind_the_next_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let private = kill_owner_of_a_server(
        &crate::test_name(module_path!(), "owner_child"),
        OWNER_ENV,
        dir.path(),
    );
    let next_dir = tempfile::tempdir().expect("temp dir");
    let next = RedisServer::start(next_dir.path(), false).expect("start the next server");
    assert!(
        !std::path::Path::new(&private).exists(),
        "{private} (with the killed server's socket) outlived its owner and the next start"
    );
    drop(next);
}

#[test]
fn redis_url_credentials_are_never_printed() {
    for form in [
        "redis+unix:///nonexistent/x.sock?pass=SECRET",
        "redis://u:SECRET@127.0.0.1:1/",
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let err = RedisStore::open(
            dir.path(),
            TABLES,
            RedisOptions {
                url: Some(form.to_string()),
                append_only: false,
                ..RedisOptions::default()
            },
        )
        .expect_err("opened an unreachable server");
        let msg = err.to_string();
        assert!(!msg.contains("SECRET"), "{form}: {msg}");
        assert!(msg.contains("***"), "{form}: {msg}");
    }
}

#[test]
fn redaction_covers_every_form_the_client_accepts() {
    assert_eq!(redact("redis://u:SECRET@h:1/0"), "redis://***@h:1/0");
    assert_eq!(redact("redis://:SECRET@h:1/0"), "redis://***@h:1/0");
    assert_eq!(
        redact("redis+unix:///x.sock?pass=SECRET"),
        "redis+unix:///x.sock?pass=***"
    );
    assert_eq!(
        redact("unix:///x.sock?db=2&password=SECRET"),
        "unix:///x.sock?db=2&password=***"
    );
    assert_eq!(redact("redis://h:1/0"), "redis://h:1/0");
}

#[test]
fn an_aof_left_by_a_root_server_of_an_older_version_is_reopened() {
    use triebench_kv::{ReadTx, Store, WriteTx};
    let dir = tempfile::tempdir().expect("temp dir");
    let options = RedisOptions {
        url: None,
        append_only: true,
        ..RedisOptions::default()
    };
    {
        let store = RedisStore::open(dir.path(), TABLES, options.clone()).expect("open");
        let t = store.table("main").expect("t");
        let mut w = store.writer().expect("writer");
        w.put(t, b"k", b"v").expect("put");
        w.commit().expect("commit");
    }
    // An older version ran redis-server as root: its files were root's.
    for entry in std::fs::read_dir(dir.path().join("appendonlydir")).expect("ls") {
        let path = entry.expect("entry").path();
        std::os::unix::fs::chown(&path, Some(0), Some(0)).ok();
    }
    let store = RedisStore::open(dir.path(), TABLES, options).expect("reopen");
    let t = store.table("main").expect("t");
    let r = store.reader().expect("reader");
    assert_eq!(r.get(t, b"k").expect("get").as_deref(), Some(&b"v"[..]));
    let mut w = store.writer().expect("writer");
    w.put(t, b"k2", b"v2").expect("put");
    w.commit().expect("commit after reopening");
}
