//! What a run costs its machine: from `/proc`, of its processes (this one, a managed server, and
//! the server's children: PostgreSQL's backends and writers), the bytes written to block devices
//! (`write_bytes` of `/proc/<pid>/io`) and resident memory (`VmRSS`), 0 off Linux or for a
//! process gone; and the blocks its store's directory occupies ([`disk_usage`]).

/// `pids` and every process whose parent is one of them, this process's children excepted
/// (its own helper threads and children are not the server's).
pub fn with_children(pids: &[u32]) -> Vec<u32> {
    let mut all = pids.to_vec();
    let parents: Vec<u32> = pids
        .iter()
        .copied()
        .filter(|&p| p != std::process::id())
        .collect();
    if parents.is_empty() {
        return all;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return all;
    };
    all.extend(
        dir.flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|&pid| parent_of(pid).is_some_and(|ppid| parents.contains(&ppid))),
    );
    all
}

/// Bytes `pids` and their children (see [`with_children`]) have written to block devices.
pub fn write_bytes(pids: &[u32]) -> u64 {
    with_children(pids)
        .iter()
        .map(|&p| field(&format!("/proc/{p}/io"), "write_bytes:").unwrap_or(0))
        .sum()
}

/// Resident memory of `pids` and their children (see [`with_children`]), bytes.
pub fn rss_bytes(pids: &[u32]) -> u64 {
    with_children(pids)
        .iter()
        .map(|&p| field(&format!("/proc/{p}/status"), "VmRSS:").map_or(0, |kb| kb * 1024))
        .sum()
}

/// Bytes `dir` occupies on disk: the allocated blocks of every file below it, not apparent
/// sizes (a sparse LMDB map counts what it uses); 0 for what cannot be read.
pub fn disk_usage(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => disk_usage(&entry.path()),
            Ok(meta) => allocated(&meta),
            Err(_) => 0,
        })
        .sum()
}

#[cfg(unix)]
fn allocated(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.blocks() * 512
}

/// Where blocks are not reported, the apparent size.
#[cfg(not(unix))]
fn allocated(meta: &std::fs::Metadata) -> u64 {
    meta.len()
}

/// The first number after `key` at the start of a line of `path`.
fn field(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.split_whitespace().next()?.parse().ok())
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_resident_memory_and_is_its_parent_s_child() {
        assert!(rss_bytes(&[std::process::id()]) > 0);
        let parent = parent_of(std::process::id()).expect("parent");
        let found = with_children(&[parent]);
        assert_eq!(found[0], parent);
        assert!(found.contains(&std::process::id()), "{found:?}");
    }
}
