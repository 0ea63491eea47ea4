//! Who is at the other end of a loopback TCP connection: the replica's link admits only a
//! connection whose client socket the replica's own process holds.
//!
//! Redis replicates only over TCP, so the replica dials a proxy on `127.0.0.1` that any local
//! user can reach. Rather than trust the password alone, the proxy asks the kernel who
//! connected: the client's socket is found in the socket table (`/proc/net/tcp`, by its two
//! ports) and must be among the open descriptors of the replica's process
//! (`/proc/<pid>/fd`). Any other connection is closed before a byte is forwarded. Linux only
//! (elsewhere nothing is admitted: the replica profile is Linux's).

use std::net::TcpStream;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The replica's process id, set once it is known (0 until then: nothing is admitted, and
/// the replica, which retries its link every second, gets in on a later try).
pub(crate) type ReplicaPid = Arc<AtomicU32>;

/// Whether the client end of `stream` (accepted by a loopback proxy) is held by process `pid`.
pub(crate) fn is_held_by(stream: &TcpStream, pid: &ReplicaPid) -> bool {
    let pid = pid.load(Ordering::Acquire);
    if pid == 0 {
        return false;
    }
    let (Ok(peer), Ok(local)) = (stream.peer_addr(), stream.local_addr()) else {
        return false;
    };
    let Some(inode) = client_socket_inode(peer.port(), local.port()) else {
        return false;
    };
    let wanted = format!("socket:[{inode}]");
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t.as_os_str() == wanted.as_str()))
}

/// The inode of the IPv4 TCP socket whose local port is `client` and remote port `server`
/// (the client's end of a loopback connection), from `/proc/net/tcp`.
fn client_socket_inode(client: u16, server: u16) -> Option<u64> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    table.lines().skip(1).find_map(|line| {
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        let fields: Vec<&str> = line.split_whitespace().collect();
        let port = |f: &str| {
            f.rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
        };
        let (local, remote) = (port(fields.get(1)?)?, port(fields.get(2)?)?);
        (local == client && remote == server)
            .then(|| fields.get(9)?.parse().ok())
            .flatten()
            .filter(|&inode: &u64| inode != 0)
    })
}
