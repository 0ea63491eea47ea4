//! A managed redis-server whose owner is killed with SIGKILL (no drop, no cleanup) does not
//! outlive it: the server is started with `PR_SET_PDEATHSIG` (Linux). The owner is this test
//! binary re-run as a child process.
#![cfg(all(feature = "redis-db", target_os = "linux"))]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use triebench_kv::redis::RedisServer;

/// Set in the child: the directory to start the server in.
const CHILD_ENV: &str = "TRIEBENCH_REDIS_ORPHAN_DIR";

fn alive(pid: u32) -> bool {
    // A zombie has no cwd link; a running process has one.
    std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok()
}

#[test]
fn server_dies_with_its_sigkilled_owner() {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test executable");
    let mut child = Command::new(exe)
        .args(["--exact", "orphan_child", "--nocapture"])
        .env(CHILD_ENV, dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn child");
    let stdout = child.stdout.take().expect("stdout");
    let mut pid = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read child");
        if let Some(rest) = line.strip_prefix("server pid ") {
            pid = rest.trim().parse::<u32>().ok();
            break;
        }
        if line.contains("skipped") {
            let _ = child.kill();
            let _ = child.wait();
            return;
        }
    }
    let pid = pid.expect("the child printed its server's pid");
    assert!(alive(pid), "server {pid} is running before the kill");
    child.kill().expect("SIGKILL the owner");
    child.wait().expect("reap the owner");
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !alive(pid),
        "redis-server {pid} outlived its SIGKILLed owner"
    );
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
