//! The machine this process runs on, read from `/proc`: what a run record (and a report's
//! `env.json`) records as its host.

use std::fs;

use crate::env::HostInfo;

fn read(path: &str) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// The host name (kernel's, else `$HOSTNAME`, else `unknown`).
pub fn hostname() -> String {
    let name = read("/proc/sys/kernel/hostname").trim().to_string();
    if !name.is_empty() {
        return name;
    }
    std::env::var("HOSTNAME")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

fn cpuinfo_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (k, v) = line.split_once(':')?;
    (k.trim() == key).then(|| v.trim())
}

/// Captures the host facts from /proc (fields read `unknown`/`null` elsewhere).
pub fn capture_host() -> HostInfo {
    let cpuinfo = read("/proc/cpuinfo");
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| cpuinfo_value(l, "model name").or_else(|| cpuinfo_value(l, "Model")))
        .unwrap_or("unknown")
        .to_string();
    let mut physical = std::collections::BTreeSet::new();
    let mut package = "";
    for line in cpuinfo.lines() {
        if let Some(v) = cpuinfo_value(line, "physical id") {
            package = v;
        }
        if let Some(v) = cpuinfo_value(line, "core id") {
            physical.insert((package.to_string(), v.to_string()));
        }
    }
    let ram_bytes = read("/proc/meminfo").lines().find_map(|l| {
        let kb = l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?;
        kb.trim().parse::<u64>().ok().map(|k| k * 1024)
    });
    let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
    HostInfo {
        hostname: hostname(),
        cpu_model,
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        physical_cores: (!physical.is_empty()).then_some(physical.len()),
        ram_bytes,
        kernel: if kernel.is_empty() {
            "unknown".to_string()
        } else {
            kernel
        },
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
    }
}
