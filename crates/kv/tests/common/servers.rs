//! What the tests of managed servers (pairs, proxies) share: this process's private server
//! directories under /tmp, the check that stopped servers left nothing running or behind, and
//! one-key writes and reads on a store's `main` table.

use std::path::PathBuf;

use triebench_kv::{KvResult, ReadTx, Store, WriteTx};

use super::alive;

/// This process's private directories of a kind (`pg`, `redis`, `net`) under /tmp.
pub fn private_dirs(kind: &str) -> Vec<PathBuf> {
    let prefix = format!("triebench-{kind}-{}-", std::process::id());
    std::fs::read_dir("/tmp")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts that none of the servers `pids` runs any more and that this process has no private
/// directory of any of `kinds` left.
pub fn assert_stopped(pids: &[u32], kinds: &[&str]) {
    for &pid in pids {
        assert!(!alive(pid), "server {pid} still runs");
    }
    for kind in kinds {
        let left = private_dirs(kind);
        assert!(left.is_empty(), "{kind} directories left: {left:?}");
    }
}

/// Commits `key` = `value` in the store's `main` table.
pub fn put<S: Store>(store: &S, key: &[u8], value: &[u8]) -> KvResult<()> {
    let t = store.table("main")?;
    let mut w = store.writer()?;
    w.put(t, key, value)?;
    w.commit()
}

/// The committed value of `key` in the store's `main` table.
pub fn get<S: Store>(store: &S, key: &[u8]) -> Option<Vec<u8>> {
    let t = store.table("main").expect("table main");
    store
        .reader()
        .expect("reader")
        .get(t, key)
        .expect("get")
        .map(|v| v.to_vec())
}
