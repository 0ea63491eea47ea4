//! [`DelayProxy`]: a listener on a unix socket that forwards each connection to a target socket
//! through two delayed pumps.

use std::io;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use crate::delay::DelaySpec;
use crate::pump::{forward, Direction};

/// A running proxy: listens on [`listen_path`](Self::listen_path) and forwards to the target
/// with [`DelaySpec`]'s delays. Dropping it stops listening, closes every proxied connection and
/// removes the socket file.
#[derive(Debug)]
pub struct DelayProxy {
    listen: PathBuf,
    spec: DelaySpec,
    stop: Arc<AtomicBool>,
    /// Both ends of every connection, to shut them when the proxy stops.
    open: Arc<Mutex<Vec<UnixStream>>>,
    acceptor: Option<JoinHandle<()>>,
}

impl DelayProxy {
    /// Listens on `listen` (which must not exist; put it in a directory only its owner can
    /// enter) and forwards each connection to the unix socket `target`.
    pub fn start(listen: &Path, target: &Path, spec: DelaySpec) -> io::Result<DelayProxy> {
        let listener = UnixListener::bind(listen)?;
        let stop = Arc::new(AtomicBool::new(false));
        let open: Arc<Mutex<Vec<UnixStream>>> = Arc::new(Mutex::new(Vec::new()));
        let acceptor = {
            let (stop, open, target) = (stop.clone(), open.clone(), target.to_path_buf());
            thread::Builder::new()
                .name("netdelay-accept".into())
                .spawn(move || accept_loop(listener, &target, spec, &stop, &open))?
        };
        Ok(DelayProxy {
            listen: listen.to_path_buf(),
            spec,
            stop,
            open,
            acceptor: Some(acceptor),
        })
    }

    /// Where clients connect.
    pub fn listen_path(&self) -> &Path {
        &self.listen
    }

    /// What the proxy adds.
    pub fn spec(&self) -> DelaySpec {
        self.spec
    }
}

fn accept_loop(
    listener: UnixListener,
    target: &Path,
    spec: DelaySpec,
    stop: &AtomicBool,
    open: &Mutex<Vec<UnixStream>>,
) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for client in listener.incoming() {
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
                client.try_clone()?,
                server.try_clone()?,
                client.try_clone()?,
                server.try_clone()?,
            ))
        })();
        let Ok((client_r, server_w, keep_c, keep_s)) = clones else {
            continue;
        };
        if let Ok(mut list) = open.lock() {
            list.push(keep_c);
            list.push(keep_s);
        }
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
        let _ = UnixStream::connect(&self.listen);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        if let Ok(list) = self.open.lock() {
            for stream in list.iter() {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        }
        let _ = std::fs::remove_file(&self.listen);
    }
}
