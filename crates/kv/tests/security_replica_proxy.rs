//! Issue 48, item 3: the Redis replica's loopback TCP proxy admits only the replica's own
//! process (anyone else, this test included, is closed before a byte reaches the primary),
//! and neither a refused nor a proxied connection leaves a descriptor or a thread behind.
#![cfg(all(target_os = "linux", feature = "redis-db"))]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixListener;
use std::time::{Duration, Instant};

use common::listening_tcp_ports;
use triebench_kv::net_hop::rtt_micros;
use triebench_kv::redis::{RedisOptions, RedisStore};
use triebench_kv_conformance::TABLES;
use triebench_netdelay::{DelayProxy, DelaySpec};

/// The tests count this process's descriptors: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This process's open descriptors and threads.
fn fds_and_threads() -> (usize, usize) {
    let fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    let threads = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0);
    (fds, threads)
}

/// Waits (up to a generous bound; a leak never settles) until this process holds at most
/// `fds` descriptors and `threads` threads plus `slack`; returns what it holds then.
fn settle(fds: usize, threads: usize, slack: usize) -> (usize, usize) {
    let started = Instant::now();
    loop {
        let now = fds_and_threads();
        if (now.0 <= fds + slack && now.1 <= threads + slack)
            || started.elapsed() > Duration::from_secs(60)
        {
            return now;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn only_the_replica_reaches_the_primary_and_refused_clients_leave_nothing() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let store = RedisStore::open_replicated(
        tmp.path(),
        TABLES,
        RedisOptions::default(),
        Some(rtt_micros(200)),
    )
    .unwrap();
    common::servers::put(&store, b"k", b"v").unwrap();
    // The proxy's port, as the replica dials it.
    let replica = store.replica_server().unwrap();
    let mut con = redis::Client::open(replica.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let info: String = redis::cmd("INFO")
        .arg("replication")
        .query(&mut con)
        .unwrap();
    let port: u16 = info
        .lines()
        .find_map(|l| l.strip_prefix("master_port:"))
        .and_then(|p| p.trim().parse().ok())
        .expect("master_port");
    assert!(listening_tcp_ports(std::process::id()).contains(&port));

    // Anyone but the replica: no answer from the primary, the connection just closes.
    let mut other = TcpStream::connect(("127.0.0.1", port)).unwrap();
    other
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let _ = other.write_all(b"PING\r\n");
    let mut answer = Vec::new();
    let _ = other.read_to_end(&mut answer);
    assert!(
        answer.is_empty(),
        "a client other than the replica reached the primary: {:?}",
        String::from_utf8_lossy(&answer)
    );
    drop(other);

    // 300 connect/close cycles (the measure) leave no descriptor or thread behind.
    let (fds, threads) = fds_and_threads();
    for _ in 0..300 {
        if let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = c.write_all(b"PING\r\n");
        }
    }
    let after = settle(fds, threads, 4);
    assert!(
        after.0 <= fds + 4 && after.1 <= threads + 4,
        "300 refused connections left {} descriptors and {} threads (before: {fds}, {threads})",
        after.0,
        after.1
    );
    // The replica still has its link: commits are acknowledged.
    common::servers::put(&store, b"k2", b"v2").unwrap();
}

#[test]
fn a_proxied_connection_leaves_nothing_once_closed() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("echo.sock");
    let listener = UnixListener::bind(&target).unwrap();
    // An echo server that closes when its client does.
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut conn = conn;
                let mut buf = [0u8; 64];
                while let Ok(n) = conn.read(&mut buf) {
                    if n == 0 || conn.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            });
        }
    });
    let proxy = DelayProxy::start_tcp(&target, DelaySpec::from_rtt(Duration::ZERO)).unwrap();
    let addr = proxy.tcp_addr().unwrap();
    // One round first, so lazily made process state does not count as a leak.
    {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(b"x").unwrap();
        let mut b = [0u8; 1];
        c.read_exact(&mut b).unwrap();
    }
    std::thread::sleep(Duration::from_millis(200));
    let (fds, threads) = fds_and_threads();
    for _ in 0..300 {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(b"x").unwrap();
        let mut b = [0u8; 1];
        c.read_exact(&mut b).unwrap();
    }
    let after = settle(fds, threads, 4);
    assert!(
        after.0 <= fds + 4 && after.1 <= threads + 4,
        "300 proxied connections left {} descriptors and {} threads (before: {fds}, {threads})",
        after.0,
        after.1
    );
}
