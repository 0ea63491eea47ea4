//! Opening a state by profile name: the store, with the trie's tables, and its empty root.

use std::path::Path;

use triebench_kv::{AnyStore, BackendSpec};
use triebench_merkle::TABLES;

use crate::error::OpenError;
use crate::state::TransactState;

/// Opens a [`TransactState`] on the backend profile `profile` (`btree`, `lmdb`, `lmdb-async`,
/// `sqlite-wal-full`, `postgres`, ... as `triebench profiles` lists them) with its files in
/// `dir`, declaring the trie's tables and storing the empty root.
///
/// `dir` is required by every profile but `btree`. A managed server (`redis*`, `postgres*`) is
/// started for the state and stopped when the last clone of it is dropped, unless
/// `REDIS_URL` / `POSTGRES_URL` name a server to use instead; `TRIEBENCH_LMDB_MAP_SIZE` sets
/// LMDB's map size (default [`DEFAULT_LMDB_MAP_SIZE`](triebench_kv::DEFAULT_LMDB_MAP_SIZE)).
pub fn open(profile: &str, dir: Option<&Path>) -> Result<TransactState<AnyStore>, OpenError> {
    let spec = BackendSpec::parse(profile, dir.map(Path::to_path_buf))?;
    let store = spec.open_any(TABLES)?;
    Ok(TransactState::from_store(store)?)
}
