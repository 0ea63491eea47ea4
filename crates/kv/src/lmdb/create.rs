//! Creating an `lmdb` store whole or not at all.
//!
//! LMDB writes a new data file's meta pages without syncing them; a power cut before the first
//! commit's sync may keep some of the file's pages and not others, and the store never opens
//! again (`meta page 0 names page size 0`, found by `triebench crash-test --model reordered`).
//! And LMDB never syncs the directory: a cut may lose `data.mdb` itself with every commit in it
//! (`--model metadata`). So a new store is built in `lmdb.new`, with its tables, synced,
//! renamed to `lmdb`, and its parent directories synced: after a cut there is either no store
//! (a leftover `lmdb.new` is removed and the creation starts over) or a complete one.

use std::path::Path;

use lmdb::{DatabaseFlags, Environment, EnvironmentFlags};

use crate::error::{KvError, KvResult};
use crate::store_dir::{create_store_dir, sync_dir};

use super::{open_error, BACKEND};

/// The name a store is built under before it is renamed into place.
const BUILDING: &str = "lmdb.new";

/// Creates the store directory `sub` (`dir/lmdb`) with `names` as tables, atomically.
pub(super) fn create_atomically(
    dir: &Path,
    sub: &Path,
    names: &[String],
    map_size: usize,
) -> KvResult<()> {
    let building = dir.join(BUILDING);
    match std::fs::symlink_metadata(&building) {
        // A creation a crash interrupted: never renamed, so never a store anyone used.
        Ok(_) => std::fs::remove_dir_all(&building)
            .map_err(|e| KvError::io("remove an unfinished store", &building, e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(KvError::io("inspect", &building, e)),
    }
    create_store_dir(&building)?;
    // As every open does: LMDB maps its lock file, where a full disk would be a SIGBUS.
    super::space::reserve_lock_file(&building.join("lock.mdb"), dir)?;
    {
        let env = Environment::new()
            .set_flags(EnvironmentFlags::NO_TLS)
            .set_max_dbs(u32::try_from(names.len()).unwrap_or(u32::MAX))
            .set_map_size(map_size)
            .open_with_permissions(&building, crate::store_dir::LMDB_FILE_MODE)
            .map_err(|e| open_error(e, &building))?;
        for name in names {
            env.create_db(Some(name), DatabaseFlags::empty())
                .map_err(|e| open_error(e, &building))?;
        }
        env.sync(true).map_err(|e| KvError::backend(BACKEND, e))?;
    }
    sync_dir(&building)?;
    std::fs::rename(&building, sub).map_err(|e| KvError::io("rename the new store", sub, e))?;
    sync_dir(dir)?;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        // `dir` may be new too; a parent this process cannot open is not its to sync.
        if std::fs::File::open(parent).is_ok() {
            sync_dir(parent)?;
        }
    }
    Ok(())
}
