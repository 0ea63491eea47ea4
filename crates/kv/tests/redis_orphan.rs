//! A managed redis-server whose owner is killed with SIGKILL (no drop, no cleanup) does not
//! outlive it: the server is started with `PR_SET_PDEATHSIG` (Linux). The owner is this test
//! binary re-run as a child process.
#![cfg(all(feature = "redis-db", target_os = "linux"))]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use triebench_kv::redis::RedisServer;

/// Set in the child: the directory to start the server in.
const CHILD_ENV: &str = "TRIEBENCH_REDIS_ORPHAN_DIR";

fn alive(pid: u32) -> bool {
    // A zombie has no cwd link; a running process has one.
    std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok()
}

/// The owner: this test binary re-run as a child that starts a server in `dir` (with `env`
/// set too), and the server's pid it printed; `None` when it skipped (no redis-server here).
fn start_owner(dir: &std::path::Path, env: &[(&str, &std::path::Path)]) -> Option<(Child, u32)> {
    let exe = std::env::current_exe().expect("test executable");
    let mut command = Command::new(exe);
    command
        .args([
            "--exact",
            &crate::test_name(module_path!(), "orphan_child"),
            "--nocapture",
        ])
        .env(CHILD_ENV, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("spawn child");
    let stdout = child.stdout.take().expect("stdout");
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read child");
        if let Some(rest) = line.strip_prefix("server pid ") {
            let pid = rest.trim().parse::<u32>().expect("the server's pid");
            return Some((child, pid));
        }
        if line.contains("skipped") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// SIGKILLs the owner, then waits for its server to exit, however long that takes: one that
/// outlives its owner keeps this loop going until the test command's timeout, and libtest names
/// the test as running on (no wall-clock bound here decides the verdict).
fn kill_owner(mut child: Child, server: u32) {
    child.kill().expect("SIGKILL the owner");
    child.wait().expect("reap the owner");
    while alive(server) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn server_dies_with_its_sigkilled_owner() {
    let dir = tempfile::tempdir().expect("temp dir");
    let Some((child, pid)) = start_owner(dir.path(), &[]) else {
        return;
    };
    assert!(alive(pid), "server {pid} is running before the kill");
    kill_owner(child, pid);
}

#[test]
fn server_dirs_moves_the_private_directory_and_a_killed_owners_stays_there() {
    // TRIEBENCH_SERVER_DIRS, as the crash test sets it: short, enterable by the server's user.
    let servers = tempfile::Builder::new()
        .prefix("tbsd-")
        .tempdir_in("/tmp")
        .expect("server dirs");
    std::fs::set_permissions(
        servers.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o711),
    )
    .expect("chmod");
    let dir = tempfile::tempdir().expect("temp dir");
    let (child, pid) = start_owner(
        dir.path(),
        &[(triebench_kv::SERVER_DIRS_VAR, servers.path())],
    )
    .expect("redis-server runs here");
    let owner = format!("triebench-redis-{}-", child.id());
    let private_dirs = || -> Vec<std::fs::DirEntry> {
        std::fs::read_dir(servers.path())
            .expect("read server dirs")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&owner))
            .collect()
    };
    let made = private_dirs();
    assert_eq!(
        made.len(),
        1,
        "the owner's private directory, in TRIEBENCH_SERVER_DIRS"
    );
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&made[0].metadata().expect("stat").permissions());
    assert_eq!(mode & 0o777, 0o700);
    kill_owner(child, pid);
    // Its owner gone uncleanly, the directory stays where it was made until a cleanup there.
    assert_eq!(private_dirs().len(), 1);
}

/// The child half: starts a server, prints its pid, and waits to be killed.
#[test]
fn orphan_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    match RedisServer::start(std::path::Path::new(&dir), false) {
        Ok(server) => {
            println!("server pid {}", server.pid());
            std::thread::sleep(Duration::from_secs(60));
            drop(server);
        }
        Err(e) => println!("skipped: {e}"),
    }
}

/// A socket file in /tmp with nobody listening, its modification time set `age_s` seconds back.
fn dead_socket(name: &str, age_s: i64) -> std::path::PathBuf {
    let path = std::path::Path::new("/tmp").join(name);
    let _ = std::fs::remove_file(&path);
    drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
    let stamp = format!("@{}", unix_now() - age_s);
    let ok = Command::new("touch")
        .args(["-h", "-d", &stamp])
        .arg(&path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "touch {}", path.display());
    path
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[test]
fn a_killed_servers_socket_file_is_removed_by_the_next_server() {
    // Ports above 65535 are never a real server's, so these names are this test's alone.
    let stale = dead_socket("triebench-redis-99001.sock", 3600);
    let young = dead_socket("triebench-redis-99002.sock", 0);
    let dir = tempfile::tempdir().expect("temp dir");
    let server = RedisServer::start(dir.path(), false).expect("start");
    assert!(
        !stale.exists(),
        "an hour-old socket nobody answers on was kept"
    );
    assert!(
        young.exists(),
        "a socket bound moments ago may be a server starting"
    );
    assert!(server.is_running());
    let _ = std::fs::remove_file(young);
}
