//! Prints what the delay proxy adds to a one-byte round trip at each round trip given on the
//! command line (default `0 250us 1ms`): median straight to an echo server, median and p99
//! through the proxy, and the proxy's own share beyond the set delay.
//!
//! `cargo run --release -p triebench-netdelay --example probe -- 0 500us`

use triebench_netdelay::{probe, DelaySpec};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rtts = if args.is_empty() {
        vec!["0".to_string(), "250us".to_string(), "1ms".to_string()]
    } else {
        args
    };
    let dir = match tempfile::Builder::new().prefix("netdelay-probe-").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("error: cannot make a temporary directory: {e}");
            std::process::exit(1);
        }
    };
    println!("set rtt    direct median   proxied median   proxied p99   added beyond set");
    for text in rtts {
        let rtt = match DelaySpec::parse_duration(&text) {
            Ok(rtt) => rtt,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        match probe(dir.path(), DelaySpec::from_rtt(rtt), 2000) {
            Ok(r) => println!(
                "{:>7}    {:>10.1} µs    {:>10.1} µs    {:>8.1} µs    {:>8.1} µs",
                text,
                r.direct_median.as_secs_f64() * 1e6,
                r.proxied_median.as_secs_f64() * 1e6,
                r.proxied_p99.as_secs_f64() * 1e6,
                r.overhead().as_secs_f64() * 1e6
            ),
            Err(e) => {
                eprintln!("error: probe at {text}: {e}");
                std::process::exit(1);
            }
        }
    }
}
