//! Bytes a run writes and the space its state takes: this process's `write_bytes` from
//! `/proc/self/io` plus a managed server's and its children's (PostgreSQL's backends and
//! writers), and the size of the state directory. On tmpfs nothing reaches a block device and
//! `write_bytes` stays 0; off Linux both read 0.

use std::path::Path;

/// Total `write_bytes` of this process, of `server` and of every process whose parent it is.
pub fn write_bytes(server: Option<u32>) -> u64 {
    let mut pids = vec![std::process::id()];
    if let Some(server) = server {
        pids.push(server);
        pids.extend(children_of(server));
    }
    pids.iter().map(|&p| io_field(p, "write_bytes")).sum()
}

fn io_field(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.trim().parse().ok())?
            })
        })
        .unwrap_or(0)
}

/// Processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    // The fields after the command name (which may hold spaces) in brackets.
                    let rest = &s[s.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// Bytes the files under `dir` take on disk (allocated blocks, so a sparse LMDB map counts
/// what it uses); 0 when it cannot be read.
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_bytes(&e.path()),
            Ok(m) => allocated(&m),
            Err(_) => 0,
        })
        .sum()
}

#[cfg(unix)]
fn allocated(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.blocks() * 512
}

#[cfg(not(unix))]
fn allocated(m: &std::fs::Metadata) -> u64 {
    m.len()
}
