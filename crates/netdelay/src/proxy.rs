//! [`DelayProxy`]: a listener on a unix socket (or on loopback TCP, for a server that only
//! dials TCP, like a Redis replica) that forwards each connection to a target unix socket
//! through two delayed pumps.

use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Every end of every proxied connection, to shut them when the proxy stops.
#[derive(Default, Clone)]
struct Open(Arc<Mutex<Vec<Closer>>>);

impl std::fmt::Debug for Open {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |l| l.len());
        write!(f, "Open({n})")
    }
}

impl Open {
    fn keep<S: Stream>(&self, stream: S) {
        if let Ok(mut list) = self.0.lock() {
            list.push(Box::new(move || stream.shut(Shutdown::Both)));
        }
    }

    fn close_all(&self) {
        if let Ok(list) = self.0.lock() {
            for close in list.iter() {
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
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        Self::spawn(
            Listen::Tcp(addr),
            move || {
                let (stream, _) = listener.accept()?;
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
        open.keep(keep_c);
        open.keep(keep_s);
        let spawned = thread::Builder::new()
            .name("netdelay-up".into())
            .spawn(move || forward(client_r, server_w, up));
        if spawned.is_err() {
            continue;
        }
        let _ = thread::Builder::new()
            .name("netdelay-down".into())
            .spawn(move || forward(server, client, down));
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
