//! Bytes a run writes and the space its state takes: this process's `write_bytes` from
//! `/proc/self/io` plus a managed server's and its children's (PostgreSQL's backends and
//! writers), and the size of the state directory. On tmpfs nothing reaches a block device and
//! `write_bytes` stays 0; off Linux both read 0.

use std::path::Path;

/// Total `write_bytes` of this process, of `server` and of its children.
pub fn write_bytes(server: Option<u32>) -> u64 {
    let mut pids = vec![std::process::id()];
    pids.extend(server);
    triebench_record::proc_stats::write_bytes(&pids)
}

/// Bytes the files under `dir` take on disk (allocated blocks, so a sparse LMDB map counts
/// what it uses); 0 when it cannot be read.
pub fn dir_bytes(dir: &Path) -> u64 {
    triebench_record::proc_stats::disk_usage(dir)
}
