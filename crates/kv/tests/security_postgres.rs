//! Issue 34, PostgreSQL: a managed server is reachable only by its owner (a private 0700 socket
//! directory whatever the data path's length, peer authentication, an ordinary role for the
//! store), does not run as root, follows no planted link in the directory under test, changes
//! no permission of its parents, leaves no socket directory behind a SIGKILLed owner, and no
//! message prints a password of `POSTGRES_URL`.
#![cfg(all(feature = "postgres-db", target_os = "linux"))]

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

use common::{child_arg, kill_owner_of_a_server, long_dir, mode, Stranger};
use triebench_kv::postgres::{redact, PgOptions, PgServer, PgStore};
use triebench_kv::KvError;
use triebench_kv_conformance::TABLES;

/// The stranger's half: tries the socket directory in its argument as the cluster's roles and
/// as itself, printing `reached <role>` for each login that worked.
#[test]
fn stranger_child() {
    let Some(socket_dir) = child_arg() else {
        return;
    };
    for role in ["triebench", "triebench_store", "postgres", "nobody"] {
        let result = postgres::Config::new()
            .host_path(&socket_dir)
            .user(role)
            .dbname("postgres")
            .connect_timeout(Duration::from_secs(5))
            .connect(postgres::NoTls);
        match result {
            Ok(_) => println!("reached as {role}"),
            Err(e) => println!("refused as {role}: {e}"),
        }
    }
}

#[test]
fn another_local_user_cannot_reach_the_server() {
    let Some(stranger) = Stranger::create() else {
        return;
    };
    let parent = tempfile::tempdir().expect("temp dir");
    // A long data path: where the socket used to fall back to a world-readable /tmp/tbpg*.
    let dir = long_dir(parent.path(), 120);
    let server = PgServer::start(&dir).expect("start");
    let out = stranger.run(
        &crate::test_name(module_path!(), "stranger_child"),
        &server.socket_dir().display().to_string(),
    );
    println!("as {}: {out}", stranger.name);
    assert!(
        !out.contains("reached"),
        "user {} reached the managed postgres: {out}",
        stranger.name
    );
    assert!(out.contains("refused as triebench"), "{out}");
}

#[test]
fn the_socket_directory_is_private_even_for_a_long_data_path() {
    let parent = tempfile::tempdir().expect("temp dir");
    let dir = long_dir(parent.path(), 120);
    let server = PgServer::start(&dir).expect("start");
    let socket_dir = server.socket_dir();
    assert_eq!(mode(socket_dir), 0o700, "{}", socket_dir.display());
    assert_eq!(
        std::fs::metadata(socket_dir).expect("stat").uid(),
        server.uid()
    );
    assert_eq!(mode(&socket_dir.join(".s.PGSQL.5432")) & 0o077, 0);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).expect("status");
    let uid_line = status.lines().find(|l| l.starts_with("Uid:")).expect("Uid");
    assert!(
        uid_line.split_whitespace().skip(1).all(|u| u != "0"),
        "postgres runs as root: {uid_line}"
    );
}

#[test]
fn the_stores_role_is_no_superuser_and_cannot_run_programs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = PgStore::open(dir.path(), TABLES, PgOptions::default()).expect("open");
    let server = store.server().expect("managed");
    let mut client = server.config().connect(postgres::NoTls).expect("connect");
    let row = client
        .query_one(
            "SELECT rolsuper, pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') \
             FROM pg_roles WHERE rolname = current_user",
            &[],
        )
        .expect("query");
    let (superuser, programs): (bool, bool) = (row.get(0), row.get(1));
    assert!(!superuser, "the store's role is a superuser");
    assert!(!programs, "the store's role may run server programs");
    let err = client
        .batch_execute("COPY (SELECT 1) TO PROGRAM 'true'")
        .expect_err("COPY TO PROGRAM ran");
    assert!(err.to_string().to_lowercase().contains("permission") || err.as_db_error().is_some());
}

#[test]
fn a_planted_log_link_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, b"precious\n").expect("write victim");
    let before = std::fs::metadata(&victim).expect("stat");
    std::os::unix::fs::symlink(&victim, dir.path().join("postgres.log")).expect("plant link");
    let err = PgServer::start(dir.path()).expect_err("started through a planted link");
    match &err {
        KvError::Planted { path, .. } => assert!(path.ends_with("postgres.log"), "{err}"),
        other => panic!("not a Planted error: {other:?}"),
    }
    assert_eq!(std::fs::read(&victim).expect("read victim"), b"precious\n");
    let after = std::fs::metadata(&victim).expect("stat");
    assert_eq!((after.uid(), after.mode()), (before.uid(), before.mode()));
}

#[test]
fn a_planted_pgdata_link_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let before = std::fs::metadata(elsewhere.path()).expect("stat");
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("pgdata")).expect("plant link");
    let err = PgServer::start(dir.path()).expect_err("started through a planted link");
    match &err {
        KvError::Planted { path, .. } => assert!(path.ends_with("pgdata"), "{err}"),
        other => panic!("not a Planted error: {other:?}"),
    }
    let after = std::fs::metadata(elsewhere.path()).expect("stat");
    assert_eq!(
        (after.uid(), after.gid(), after.mode()),
        (before.uid(), before.gid(), before.mode()),
        "the link's target was chowned or chmodded"
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).expect("ls").count(), 0);
}

#[test]
fn no_parent_of_the_store_is_opened_up() {
    let parent = tempfile::tempdir().expect("temp dir");
    std::fs::set_permissions(
        parent.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .expect("chmod");
    let dir = parent.path().join("store");
    let store = PgStore::open(&dir, TABLES, PgOptions::default()).expect("open");
    assert_eq!(
        mode(parent.path()),
        0o700,
        "changed while the store is open"
    );
    drop(store);
    assert_eq!(
        mode(parent.path()),
        0o700,
        "changed after the store is dropped"
    );
    assert_eq!(mode(&dir.join("pgdata")), 0o700);
    assert_eq!(mode(&dir.join("postgres.log")), 0o600);
}

/// Set in the owner child: the directory to start the server in.
const OWNER_ENV: &str = "TRIEBENCH_SECURITY_PG_OWNER";

/// The owner's half: starts a server, prints its pid and socket directory, waits to be killed.
#[test]
fn owner_child() {
    let Some(dir) = std::env::var_os(OWNER_ENV) else {
        return;
    };
    match PgServer::start(Path::new(&dir)) {
        Ok(server) => {
            println!("server {} {}", server.pid(), server.socket_dir().display());
            std::thread::sleep(Duration::from_secs(120));
            drop(server);
        }
        Err(e) => println!("failed: {e}"),
    }
}

#[test]
fn a_sigkilled_owner_leaves_no_socket_directory_behind_the_next_server() {
    let parent = tempfile::tempdir().expect("temp dir");
    let dir = long_dir(parent.path(), 120);
    let socket_dir = kill_owner_of_a_server(
        &crate::test_name(module_path!(), "owner_child"),
        OWNER_ENV,
        &dir,
    );
    let next_dir = tempfile::tempdir().expect("temp dir");
    let next = PgServer::start(next_dir.path()).expect("start the next server");
    assert!(
        !Path::new(&socket_dir).exists(),
        "{socket_dir} outlived its SIGKILLed owner and the next start"
    );
    drop(next);
}

#[test]
fn postgres_url_passwords_are_never_printed() {
    for form in [
        "host=/nonexistent user=x password=SECRET dbname=y",
        "host=/nonexistent user=x password='SE CRET' dbname=y",
        "postgres://x:SECRET@localhost:1/y?host=/nonexistent",
        "postgres://x@localhost:1/y?host=/nonexistent&password=SECRET",
        "host=/nonexistent password=SECRET port=not-a-port",
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let err = PgStore::open(
            dir.path(),
            TABLES,
            PgOptions {
                url: Some(form.to_string()),
                asynchronous: false,
                ..PgOptions::default()
            },
        )
        .expect_err("opened an unreachable server");
        let msg = err.to_string();
        assert!(
            !msg.contains("SECRET") && !msg.contains("SE CRET"),
            "{form}: {msg}"
        );
    }
}

#[test]
fn redaction_covers_every_form_the_client_accepts() {
    assert_eq!(
        redact("postgres://alice:SECRET@h/db"),
        "postgres://alice:***@h/db"
    );
    assert_eq!(
        redact("postgresql://alice@h/db?password=SECRET&sslmode=disable"),
        "postgresql://alice@h/db?password=***&sslmode=disable"
    );
    assert_eq!(
        redact("host=/run user=alice password=SECRET dbname=db"),
        "host=/run user=alice password=*** dbname=db"
    );
    assert_eq!(
        redact("host=/run password = 'SE\\'CRET' dbname=db"),
        "host=/run password = *** dbname=db"
    );
    assert_eq!(redact("host=/run dbname=db"), "host=/run dbname=db");
}
