//! [`DelayProxy`]: a listener on a unix socket (or on loopback TCP, for a server that only
//! dials TCP, like a Redis replica) that forwards each connection to a target unix socket
//! through two delayed pumps.

use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use crate::delay::DelaySpec;
use crate::pump::{forward, Direction, Stream};

/// Where a proxy listens.
#[derive(Debug, Clone)]
enum Listen {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

/// Shuts both directions of one end of a proxied connection.
type Closer = Box<dyn Fn() + Send>;

/// Decides, at accept, whether a TCP client may be proxied at all (see
/// [`DelayProxy::start_tcp_admitting`]).
pub type Admit = Box<dyn Fn(&TcpStream) -> bool + Send>;

/// The ends of every live proxied connection, to shut them when the proxy stops. A
/// connection's entry (two duplicated descriptors) is removed as soon as both of its
/// directions have ended, so no descriptor outlives its connection.
#[derive(Default, Clone)]
struct Open(Arc<Mutex<OpenList>>);

#[derive(Default)]
struct OpenList {
    next: u64,
    live: HashMap<u64, Vec<Closer>>,
}

impl std::fmt::Debug for Open {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |l| l.live.len());
        write!(f, "Open({n})")
    }
}

impl Open {
    /// Registers one connection's two ends; returns its id for [`Open::done`].
    fn keep<S: Stream, T: Stream>(&self, client: S, server: T) -> u64 {
        let Ok(mut list) = self.0.lock() else {
            return u64::MAX;
        };
        let id = list.next;
        list.next += 1;
        list.live.insert(
            id,
            vec![
                Box::new(move || client.shut(Shutdown::Both)),
                Box::new(move || server.shut(Shutdown::Both)),
            ],
        );
        id
    }

    /// Drops connection `id`'s entry (its duplicated descriptors).
    fn done(&self, id: u64) {
        if let Ok(mut list) = self.0.lock() {
            list.live.remove(&id);
        }
    }

    fn close_all(&self) {
        if let Ok(list) = self.0.lock() {
            for close in list.live.values().flatten() {
                close();
            }
        }
    }
}

/// A running proxy: listens on [`listen_path`](Self::listen_path) (or
/// [`tcp_addr`](Self::tcp_addr)) and forwards to the target with [`DelaySpec`]'s delays.
/// Dropping it stops listening, closes every proxied connection (what it still held is
/// dropped, as on a link that goes down) and removes the socket file.
#[derive(Debug)]
pub struct DelayProxy {
    listen: Listen,
    spec: DelaySpec,
    stop: Arc<AtomicBool>,
    open: Open,
    acceptor: Option<JoinHandle<()>>,
}

impl DelayProxy {
    /// Listens on `listen` (which must not exist; put it in a directory only its owner can
    /// enter) and forwards each connection to the unix socket `target`.
    pub fn start(listen: &Path, target: &Path, spec: DelaySpec) -> io::Result<DelayProxy> {
        let listener = UnixListener::bind(listen)?;
        Self::spawn(
            Listen::Unix(listen.to_path_buf()),
            move || listener.accept().map(|(s, _)| s),
            target,
            spec,
        )
    }

    /// Listens on a fresh port of `127.0.0.1` (see [`tcp_addr`](Self::tcp_addr)) and forwards
    /// each connection to the unix socket `target`: for a client that can only dial TCP. Any
    /// local user can connect to the port, so the server behind must authenticate.
    pub fn start_tcp(target: &Path, spec: DelaySpec) -> io::Result<DelayProxy> {
        Self::start_tcp_admitting(target, spec, Box::new(|_| true))
    }

    /// [`start_tcp`](Self::start_tcp), proxying only the clients `admit` accepts: any other
    /// connection is closed at once, before a byte is read or forwarded and before any thread
    /// is started for it (a Redis replica's link admits the replica's process alone).
    pub fn start_tcp_admitting(
        target: &Path,
        spec: DelaySpec,
        admit: Admit,
    ) -> io::Result<DelayProxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        Self::spawn(
            Listen::Tcp(addr),
            move || {
                let (stream, _) = listener.accept()?;
                if !admit(&stream) {
                    let _ = stream.shutdown(Shutdown::Both);
                    return Err(io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        "client not admitted",
                    ));
                }
                // No Nagle: a small write held for the peer's delayed ACK costs ~40 ms, which
                // is not the hop being emulated (servers such as Redis turn it off too).
                stream.set_nodelay(true)?;
                Ok(stream)
            },
            target,
            spec,
        )
    }

    fn spawn<C: Stream>(
        listen: Listen,
        accept: impl FnMut() -> io::Result<C> + Send + 'static,
        target: &Path,
        spec: DelaySpec,
    ) -> io::Result<DelayProxy> {
        let stop = Arc::new(AtomicBool::new(false));
        let open = Open::default();
        let acceptor = {
            let (stop, open, target) = (stop.clone(), open.clone(), target.to_path_buf());
            thread::Builder::new()
                .name("netdelay-accept".into())
                .spawn(move || accept_loop(accept, &target, spec, &stop, &open))?
        };
        Ok(DelayProxy {
            listen,
            spec,
            stop,
            open,
            acceptor: Some(acceptor),
        })
    }

    /// Where clients connect (a unix proxy; empty for a TCP one).
    pub fn listen_path(&self) -> &Path {
        match &self.listen {
            Listen::Unix(path) => path,
            Listen::Tcp(_) => Path::new(""),
        }
    }

    /// The loopback address a TCP proxy listens on (`None` for a unix one).
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        match &self.listen {
            Listen::Tcp(addr) => Some(*addr),
            Listen::Unix(_) => None,
        }
    }

    /// What the proxy adds.
    pub fn spec(&self) -> DelaySpec {
        self.spec
    }
}

fn accept_loop<C: Stream>(
    mut accept: impl FnMut() -> io::Result<C>,
    target: &Path,
    spec: DelaySpec,
    stop: &AtomicBool,
    open: &Open,
) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    loop {
        let client = accept();
        if stop.load(Ordering::Acquire) {
            break;
        }
        let Ok(client) = client else { continue };
        let Ok(server) = UnixStream::connect(target) else {
            // The client sees the connection close, as with a server that is down.
            continue;
        };
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let up = Direction {
            delay: spec.up,
            jitter: spec.jitter,
            bandwidth: spec.bandwidth,
            seed,
        };
        let down = Direction {
            delay: spec.down,
            seed: seed.rotate_left(17),
            ..up
        };
        let clones = (|| {
            Ok::<_, io::Error>((
                client.dup()?,
                server.try_clone()?,
                client.dup()?,
                server.try_clone()?,
            ))
        })();
        let Ok((client_r, server_w, keep_c, keep_s)) = clones else {
            continue;
        };
        let id = open.keep(keep_c, keep_s);
        // The last of the two directions to end drops the connection's entry.
        let ends = Arc::new(AtomicUsize::new(2));
        let finish = {
            let open = open.clone();
            move |ends: &AtomicUsize| {
                if ends.fetch_sub(1, Ordering::AcqRel) == 1 {
                    open.done(id);
                }
            }
        };
        let (up_ends, up_finish) = (ends.clone(), finish.clone());
        let spawned = thread::Builder::new()
            .name("netdelay-up".into())
            .spawn(move || {
                forward(client_r, server_w, up);
                up_finish(&up_ends);
            });
        if spawned.is_err() {
            open.done(id);
            continue;
        }
        let down_thread = thread::Builder::new()
            .name("netdelay-down".into())
            .spawn(move || {
                forward(server, client, down);
                finish(&ends);
            });
        if down_thread.is_err() {
            // Its entry goes when the up direction ends (its ends were shut here).
            open.done(id);
        }
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wake the acceptor with a connection of our own; it sees the flag and returns.
        match &self.listen {
            Listen::Unix(path) => drop(UnixStream::connect(path)),
            Listen::Tcp(addr) => drop(TcpStream::connect(addr)),
        }
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        self.open.close_all();
        if let Listen::Unix(path) = &self.listen {
            let _ = std::fs::remove_file(path);
        }
    }
}
