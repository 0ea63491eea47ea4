//! The proxy forwards every byte both ways, in order, with and without delays, holds each
//! direction for its delay, and leaves nothing behind when dropped.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::thread;
use std::time::{Duration, Instant};

use triebench_netdelay::{probe, DelayProxy, DelaySpec};

fn echo(listener: UnixListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { return };
        thread::spawn(move || {
            let mut buf = vec![0u8; 100_000];
            loop {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if stream.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
}

fn round_trip_bytes(spec: DelaySpec) {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.sock");
    let listener = UnixListener::bind(&server).unwrap();
    thread::spawn(move || echo(listener));
    let listen = dir.path().join("proxy.sock");
    let proxy = DelayProxy::start(&listen, &server, spec).unwrap();
    let mut client = UnixStream::connect(proxy.listen_path()).unwrap();
    let sent: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let writer = {
        let mut w = client.try_clone().unwrap();
        let sent = sent.clone();
        thread::spawn(move || w.write_all(&sent).unwrap())
    };
    let mut got = vec![0u8; sent.len()];
    client.read_exact(&mut got).unwrap();
    writer.join().unwrap();
    assert!(got == sent, "bytes came back changed or out of order");
    drop(client);
    drop(proxy);
    assert!(!listen.exists(), "the proxy removes its socket");
}

#[test]
fn forwards_every_byte_in_order_without_delay() {
    round_trip_bytes(DelaySpec::default());
}

#[test]
fn forwards_every_byte_in_order_with_delay_jitter_and_bandwidth() {
    round_trip_bytes(DelaySpec {
        up: Duration::from_micros(300),
        down: Duration::from_micros(100),
        jitter: Duration::from_micros(200),
        bandwidth: Some(200_000_000),
    });
}

#[test]
fn a_round_trip_takes_at_least_the_set_delay() {
    // A lower bound only: the delay is a floor, whatever the host's load (no upper bound).
    let dir = tempfile::tempdir().unwrap();
    let spec = DelaySpec::from_rtt(Duration::from_millis(20));
    let result = probe(dir.path(), spec, 20).unwrap();
    assert!(
        result.proxied_median >= Duration::from_millis(20),
        "{result:?}"
    );
    let start = Instant::now();
    let zero = probe(dir.path(), DelaySpec::default(), 20).unwrap();
    assert!(zero.proxied_median < start.elapsed(), "{zero:?}");
}

#[test]
fn stopping_the_proxy_closes_its_connections() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.sock");
    let listener = UnixListener::bind(&server).unwrap();
    thread::spawn(move || echo(listener));
    let proxy =
        DelayProxy::start(&dir.path().join("p.sock"), &server, DelaySpec::default()).unwrap();
    let mut client = UnixStream::connect(proxy.listen_path()).unwrap();
    client.write_all(b"x").unwrap();
    let mut byte = [0u8];
    client.read_exact(&mut byte).unwrap();
    drop(proxy);
    client
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut rest = Vec::new();
    assert_eq!(
        client.read_to_end(&mut rest).unwrap(),
        0,
        "the connection is closed"
    );
}

#[test]
fn a_tcp_proxy_listens_on_loopback_forwards_to_a_unix_socket_and_closes() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.sock");
    let listener = UnixListener::bind(&server).unwrap();
    thread::spawn(move || echo(listener));
    let spec = DelaySpec {
        up: Duration::from_micros(200),
        down: Duration::from_micros(200),
        ..DelaySpec::default()
    };
    let proxy = DelayProxy::start_tcp(&server, spec).unwrap();
    let addr = proxy.tcp_addr().expect("a TCP proxy has an address");
    assert!(addr.ip().is_loopback(), "{addr}");
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    let sent: Vec<u8> = (0..200_000u32).map(|i| (i * 13 % 251) as u8).collect();
    let writer = {
        let mut w = client.try_clone().unwrap();
        let sent = sent.clone();
        thread::spawn(move || w.write_all(&sent).unwrap())
    };
    let mut got = vec![0u8; sent.len()];
    client.read_exact(&mut got).unwrap();
    writer.join().unwrap();
    assert!(got == sent, "bytes came back changed or out of order");
    drop(proxy);
    client
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut rest = Vec::new();
    assert_eq!(client.read_to_end(&mut rest).unwrap(), 0, "closed");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "nothing listens on {addr} any more"
    );
}
