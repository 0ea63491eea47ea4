//! A user-space delay proxy: emulates a network hop between a client and a server that both
//! speak over unix sockets, where the kernel has no `netem` (this project's VMs).
//!
//! [`DelayProxy`] listens on a unix socket (or, with [`DelayProxy::start_tcp`], on a fresh
//! loopback TCP port, for a client that only dials TCP) and forwards each connection to the
//! server's unix socket,
//! holding every chunk of bytes for the direction's delay (plus a jitter drawn per chunk, and
//! the time the chunk takes at the optional bandwidth) before passing it on. Chunks keep their
//! order, as a TCP stream's bytes do: a chunk never leaves before the one ahead of it. At zero
//! delay without a bandwidth each chunk is forwarded as soon as it is read, which is what
//! [`probe`] measures as the proxy's own cost.
//!
//! The proxy adds no way in: it listens where its caller puts it (the caller's private 0700
//! directory) and connects to the server as the process it runs in.

mod delay;
mod probe;
mod proxy;
mod pump;

pub use delay::{DelaySpec, DelaySpecError};
pub use probe::{probe, ProbeResult};
pub use proxy::{Admit, DelayProxy};

/// The README's examples, compiled and run by `cargo test --doc` so that they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
