//! Key names: every store's keys live under a namespace derived from its directory.
//!
//! A Redis server given by `REDIS_URL` may hold the data of many stores, so every Redis key a
//! store touches starts with `tb:{<16 hex digits>}:`, the digits being a 64-bit FNV-1a hash of the
//! canonical directory path. Reopening the same directory finds the same keys; stores in
//! different directories do not collide. The braces form a Redis Cluster hash tag, so all keys of
//! one store would share a slot (the commit script touches several of them at once).
//!
//! Per declared table there are three Redis keys:
//! - `tb:{ns}:<table>:v`, a HASH from key to value (lookups, `count` = `HLEN`);
//! - `tb:{ns}:<table>:k`, a ZSET of the keys, all with score 0, so `ZRANGEBYLEX` walks them in
//!   byte order (Redis compares members with `memcmp`, the trait's order);
//! - `tb:{ns}:<table>:n`, a LIST of keys changed since the ZSET was last brought up to date:
//!   commits append to it, and a scan (or a commit, once it grows past twice the table) first
//!   moves it into the ZSET (see `scripts`). Stores written before the list existed have none,
//!   which reads as empty.

use std::path::Path;

/// The Redis keys that hold one table.
#[derive(Debug, Clone)]
pub(crate) struct TableKeys {
    /// HASH: key -> value.
    pub values: Vec<u8>,
    /// ZSET (scores all 0): the keys, ordered bytewise, as of the last sync with `pending`.
    pub order: Vec<u8>,
    /// LIST: keys put or deleted since the last sync of `order`.
    pub pending: Vec<u8>,
}

/// The namespace prefix for a store whose directory is `canonical_dir`.
pub(crate) fn prefix_for(canonical_dir: &Path) -> String {
    format!("tb:{{{:016x}}}:", fnv1a(&path_bytes(canonical_dir)))
}

/// The keys of each table, in declaration order.
pub(crate) fn table_keys(prefix: &str, names: &[String]) -> Vec<TableKeys> {
    names
        .iter()
        .map(|name| TableKeys {
            values: format!("{prefix}{name}:v").into_bytes(),
            order: format!("{prefix}{name}:k").into_bytes(),
            pending: format!("{prefix}{name}:n").into_bytes(),
        })
        .collect()
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

/// 64-bit FNV-1a: small, stable across Rust releases and platforms (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_is_stable_and_distinguishes_directories() {
        // Known FNV-1a 64 vector.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let a = prefix_for(Path::new("/tmp/one"));
        assert_eq!(a, prefix_for(Path::new("/tmp/one")));
        assert_ne!(a, prefix_for(Path::new("/tmp/two")));
        assert!(
            a.starts_with("tb:{") && a.ends_with("}:") && a.len() == 22,
            "{a}"
        );
        let keys = table_keys(&a, &["main".to_string()]);
        assert_eq!(keys[0].values, format!("{a}main:v").into_bytes());
        assert_eq!(keys[0].order, format!("{a}main:k").into_bytes());
        assert_eq!(keys[0].pending, format!("{a}main:n").into_bytes());
    }
}
