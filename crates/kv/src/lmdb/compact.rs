//! Compacting an `lmdb` store: LMDB never writes a page in place, so a commit that touches most
//! of the tree (a bulk fill's 50,000-leaf commit) leaves as many free pages behind as it copied,
//! and the data file never shrinks. Later commits reuse them, but the free list that names them
//! is itself rewritten by the commits that take pages from it: at 10^6 leaves a 1-key commit
//! wrote 10.5 MB, most of it that list (docs/findings/grow.md). And a B-tree filled with random
//! keys (the trie's node keys are hashes) keeps its leaf pages about two-thirds full.
//!
//! [`compact`] writes a **packed copy** beside the data file: every table's entries re-inserted
//! in key order with `MDB_APPEND`, so each page is filled before the next is begun, into a new
//! environment whose free list holds only the few pages its own last commits freed.
//! (`mdb_env_copy2` with `MDB_CP_COMPACT`, what `mdb_copy -c` does, drops the free pages but
//! copies each page as it is, two-thirds full.) The copy is synced and renamed over the data
//! file: at every moment the store's data file is either the old one or the whole copy, so a
//! crash loses nothing (a leftover copy is removed by the next compaction). Nothing else may
//! have the store open meanwhile: the copy is made under the store's open lock, and a handle
//! opened before the rename would keep reading the old file.
//! Commits after a packing split full pages, so random inserts bring the fill back towards
//! two-thirds; packing pays where a store is loaded in bulk, then mostly read or updated.

use std::path::{Path, PathBuf};

use lmdb::{Cursor, DatabaseFlags, Environment, EnvironmentFlags, Transaction, WriteFlags};

use crate::compaction::Compaction;
use crate::error::{KvError, KvResult};
use crate::store_dir::sync_dir;

use super::{open_error, LmdbOptions, LmdbStore, StoreFiles};

/// Entries the packed copy writes per transaction: its dirty pages (~13 MB at the trie's
/// ~130-byte entries) stay small however large the store.
const COPY_BATCH: usize = 100_000;

/// Where the compacted copy is written before it replaces the data file (`env_path` with
/// `.compact` added): a directory beside `lmdb/` (LMDB writes `data.mdb` into it) or, for
/// `lmdb-async`'s single file, a file beside it.
fn copy_path(env_path: &Path) -> PathBuf {
    let mut name = env_path.as_os_str().to_owned();
    name.push(".compact");
    PathBuf::from(name)
}

/// Compacts the store in `dir` (opened with `tables` and `options`, as [`LmdbStore::open`]
/// would): a packed copy of its data file replaces it. The store must exist (nothing is
/// created) and must not be open elsewhere.
pub fn compact(dir: &Path, tables: &[&str], options: LmdbOptions) -> KvResult<Compaction> {
    let StoreFiles {
        env_path,
        data_file,
        ..
    } = StoreFiles::under(dir, options.transact_flags);
    std::fs::symlink_metadata(&data_file)
        .map_err(|e| KvError::io("find the store to compact", &data_file, e))?;
    let copy = copy_path(&env_path);
    remove_leftover(&copy)?;
    let copied_file = if options.transact_flags {
        copy.clone()
    } else {
        crate::store_dir::create_store_dir(&copy)?;
        copy.join("data.mdb")
    };
    let bytes_before = {
        let store = LmdbStore::open(dir, tables, options)?;
        let before = file_len(&data_file)?;
        store.copy_packed(&copy, options.transact_flags)?;
        before
    };
    // Synced before the rename: a crash after it must find the whole copy under the name.
    std::fs::File::open(&copied_file)
        .and_then(|f| f.sync_all())
        .map_err(|e| KvError::io("sync the compacted copy", &copied_file, e))?;
    let bytes_after = file_len(&copied_file)?;
    std::fs::rename(&copied_file, &data_file)
        .map_err(|e| KvError::io("rename the compacted copy over", &data_file, e))?;
    if let Some(parent) = data_file.parent() {
        sync_dir(parent)?;
    }
    remove_leftover(&copy)?;
    Ok(Compaction {
        bytes_before,
        bytes_after,
    })
}

/// Removes a copy an interrupted compaction left (never the store's own file).
fn remove_leftover(copy: &Path) -> KvResult<()> {
    let removed = match std::fs::symlink_metadata(copy) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(KvError::io("inspect", copy, e)),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(copy),
        Ok(_) => std::fs::remove_file(copy),
    };
    removed.map_err(|e| KvError::io("remove an unfinished compacted copy", copy, e))
}

fn file_len(path: &Path) -> KvResult<u64> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| KvError::io("inspect", path, e))
}

impl LmdbStore {
    /// Writes a packed copy of the committed state to `dest`: every table's entries in key
    /// order, appended (`MDB_APPEND`) so each page is full before the next is begun, in
    /// transactions of 100,000 entries. `dest` is a new, empty directory for `lmdb`
    /// (the copy is `dest/data.mdb`), a new file for `lmdb-async` (`single_file`). The store
    /// stays usable; the copy reads one snapshot. The copy is synced before this returns.
    pub fn copy_packed(&self, dest: &Path, single_file: bool) -> KvResult<()> {
        // Nobody else sees the copy until it is renamed: no lock file, and one sync at the end.
        let mut flags =
            EnvironmentFlags::NO_TLS | EnvironmentFlags::NO_LOCK | EnvironmentFlags::NO_SYNC;
        if single_file {
            flags |= EnvironmentFlags::NO_SUB_DIR;
        }
        let env = Environment::new()
            .set_flags(flags)
            .set_max_dbs(u32::try_from(self.dbs.len()).unwrap_or(u32::MAX))
            .set_map_size(self.map_size)
            .open_with_permissions(dest, crate::store_dir::LMDB_FILE_MODE)
            .map_err(|e| open_error(e, dest))?;
        let snapshot = self.env.begin_ro_txn().map_err(|e| self.error(e))?;
        for (name, &from) in self.names.iter().zip(&self.dbs) {
            let to = env
                .create_db(Some(name), DatabaseFlags::empty())
                .map_err(|e| open_error(e, dest))?;
            let mut cursor = snapshot.open_ro_cursor(from).map_err(|e| self.error(e))?;
            let mut txn = env.begin_rw_txn().map_err(|e| self.error(e))?;
            let mut in_txn = 0;
            for entry in cursor.iter_start() {
                let (key, value) = entry.map_err(|e| self.error(e))?;
                txn.put(to, &key, &value, WriteFlags::APPEND)
                    .map_err(|e| self.error(e))?;
                in_txn += 1;
                if in_txn == COPY_BATCH {
                    txn.commit().map_err(|e| self.error(e))?;
                    txn = env.begin_rw_txn().map_err(|e| self.error(e))?;
                    in_txn = 0;
                }
            }
            txn.commit().map_err(|e| self.error(e))?;
        }
        env.sync(true).map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeyRange, ReadTx, Store, WriteTx};

    const TABLES: &[&str] = &["main", "log"];

    fn rows(store: &LmdbStore) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut all = Vec::new();
        for name in TABLES {
            let t = store.table(name).expect("table");
            all.extend(
                store
                    .reader()
                    .and_then(|r| r.collect(t, &KeyRange::all()))
                    .expect("scan"),
            );
        }
        all
    }

    /// A store whose big commits left free pages: 20,000 entries written, then most rewritten.
    fn churned(dir: &Path, options: LmdbOptions) -> Vec<(Vec<u8>, Vec<u8>)> {
        let store = LmdbStore::open(dir, TABLES, options).expect("open");
        let main = store.table("main").expect("table");
        let log = store.table("log").expect("table");
        for round in 0..3u32 {
            let mut w = store.writer().expect("writer");
            for i in 0..20_000u32 {
                let key = (i.wrapping_mul(2_654_435_761)).to_be_bytes();
                w.put(main, &key, &[round as u8; 100]).expect("put");
            }
            w.put(log, &round.to_be_bytes(), b"round").expect("put");
            w.commit().expect("commit");
        }
        rows(&store)
    }

    #[test]
    fn a_compacted_store_holds_the_same_rows_in_fewer_bytes_and_keeps_working() {
        for transact_flags in [false, true] {
            let tmp = tempfile::tempdir().expect("temp dir");
            let dir = tmp.path().join("store");
            let options = LmdbOptions {
                transact_flags,
                ..LmdbOptions::default()
            };
            let before = churned(&dir, options);
            let unused_share = |store: &LmdbStore| {
                let space = store
                    .space()
                    .expect("space")
                    .expect("lmdb reports its pages");
                let main = space
                    .tables
                    .iter()
                    .find(|t| t.table == "main")
                    .expect("main");
                main.unused_bytes as f64 / main.stored_bytes as f64
            };
            let churned_unused =
                unused_share(&LmdbStore::open(&dir, TABLES, options).expect("open"));
            assert!(churned_unused > 0.2, "{transact_flags}: {churned_unused}");
            // A copy an interrupted compaction left is removed, not read.
            let leftover = copy_path(&StoreFiles::under(&dir, transact_flags).env_path);
            std::fs::write(&leftover, b"half a copy").expect("leftover");
            let done = compact(&dir, TABLES, options).expect("compact");
            assert!(
                done.bytes_after < done.bytes_before,
                "{transact_flags}: {done:?}"
            );
            assert!(!leftover.exists(), "the copy was renamed into place");
            let store = LmdbStore::open(&dir, TABLES, options).expect("reopen");
            assert_eq!(rows(&store), before, "{transact_flags}: the same rows");
            let space = store
                .space()
                .expect("space")
                .expect("lmdb reports its pages");
            // Only what the copy's own last commits freed (the table records they rewrote).
            assert!(
                space.free_bytes <= 8 * store.page_size,
                "{transact_flags}: {} free bytes",
                space.free_bytes
            );
            // Packed, not copied page for page: the churned store's leaf pages were about
            // two-thirds full; appended in key order, each is full but for the last.
            let packed_unused = unused_share(&store);
            assert!(packed_unused < 0.05, "{transact_flags}: {packed_unused}");
            // The copy was opened without locking: no `-lock` file beside it.
            let mut lock = leftover.clone().into_os_string();
            lock.push("-lock");
            assert!(
                !Path::new(&lock).exists(),
                "{transact_flags}: no lock file left beside the copy"
            );
            let main = store.table("main").expect("table");
            let mut w = store.writer().expect("writer");
            w.put(main, b"after", b"compaction").expect("put");
            w.commit().expect("commit");
            let got = store
                .reader()
                .and_then(|r| r.get(main, b"after"))
                .expect("get");
            assert_eq!(got.as_deref(), Some(&b"compaction"[..]));
        }
    }

    #[test]
    fn a_store_that_is_not_there_is_an_error_and_nothing_is_made() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let missing = tmp.path().join("missing");
        let err = compact(&missing, TABLES, LmdbOptions::default()).expect_err("refused");
        assert!(
            err.to_string().contains("find the store to compact"),
            "{err}"
        );
        assert!(!missing.exists(), "no store made");
        let file = tmp.path().join("not-a-dir");
        std::fs::write(&file, b"x").expect("file");
        let err = compact(&file, TABLES, LmdbOptions::default()).expect_err("refused");
        assert!(!err.to_string().is_empty());
        assert_eq!(std::fs::read(&file).expect("kept"), b"x");
    }
}
