//! `Store::space`: where a store's bytes go, on real LMDB and SQLite files and a real
//! PostgreSQL server. Each table's entries, key and value bytes are exactly what was written;
//! its pages hold at least that; large values land out of line; deleted entries leave free pages
//! (LMDB, SQLite) or dead space inside the heap (PostgreSQL); memory and Redis report none.

use triebench_kv::{BackendSpec, KvResult, Profile, Store, StoreVisitor, WriteTx};
use triebench_record::space::StoreSpace;

/// Small entries in `small`, 12 KiB values in `large`; then, in a second commit, every other
/// small entry deleted. Returns the report after each commit.
struct FillThenDelete;

const SMALL: u64 = 2_000;
const LARGE: u64 = 20;

/// 64 bytes whose first 8 differ from entry to entry, as a hash's do (an odd multiplier is a
/// bijection on u64), then the entry's number in hex.
fn small_key(i: u64) -> Vec<u8> {
    let mut key = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes().to_vec();
    key.extend(format!("{i:056x}").bytes());
    key
}

impl StoreVisitor for FillThenDelete {
    type Output = KvResult<Option<(StoreSpace, StoreSpace)>>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let (small, large) = (store.table("small")?, store.table("large")?);
        let mut w = store.writer()?;
        for i in 0..SMALL {
            w.put(small, &small_key(i), &[i as u8; 150])?;
        }
        for i in 0..LARGE {
            w.put(large, &i.to_be_bytes(), &vec![i as u8; 12 * 1024])?;
        }
        w.commit()?;
        let Some(full) = store.space()? else {
            return Ok(None);
        };
        let mut w = store.writer()?;
        for i in (0..SMALL).step_by(2) {
            w.delete(small, &small_key(i))?;
        }
        w.commit()?;
        let after = store
            .space()?
            .expect("a store that reported space once reports it again");
        Ok(Some((full, after)))
    }
}

fn report(profile: &str) -> Option<(StoreSpace, StoreSpace)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = BackendSpec::parse(profile, Some(dir.path().join("store"))).expect("spec");
    spec.open(&["small", "large"], FillThenDelete)
        .unwrap_or_else(|e| panic!("{profile}: {e}"))
        .unwrap_or_else(|e| panic!("{profile}: {e}"))
}

#[cfg(any(feature = "lmdb", feature = "sqlite-db", feature = "postgres-db"))]
fn check_full(profile: &str, space: &StoreSpace) {
    let [small, large] = &space.tables[..] else {
        panic!("{profile}: two tables expected, got {:?}", space.tables);
    };
    assert_eq!(
        (small.table.as_str(), large.table.as_str()),
        ("small", "large")
    );
    assert_eq!(small.entries, SMALL, "{profile}");
    assert_eq!(small.key_bytes, SMALL * 64, "{profile}");
    assert_eq!(small.value_bytes, SMALL * 150, "{profile}");
    assert_eq!(large.entries, LARGE, "{profile}");
    assert_eq!(large.key_bytes, LARGE * 8, "{profile}");
    assert_eq!(large.value_bytes, LARGE * 12 * 1024, "{profile}");
    for t in [small, large] {
        assert!(t.stored_bytes > 0, "{profile}: {t:?}");
        assert!(
            t.index_bytes + t.overflow_bytes <= t.stored_bytes,
            "{profile}: index and out-of-line parts exceed the table's bytes: {t:?}"
        );
        assert!(t.unused_bytes <= t.stored_bytes, "{profile}: {t:?}");
    }
    assert!(space.page_bytes >= 512, "{profile}: {space:?}");
}

#[cfg(feature = "lmdb")]
#[test]
fn lmdb_accounts_for_its_pages_overflow_and_freelist() {
    for profile in ["lmdb", "lmdb-async"] {
        let (full, after) = report(profile).expect("LMDB reports space");
        check_full(profile, &full);
        let [small, large] = &full.tables[..] else {
            unreachable!()
        };
        // Entries of 64 + 150 bytes fill leaf pages; 12 KiB values go to overflow pages.
        assert!(
            small.stored_bytes >= small.key_bytes + small.value_bytes,
            "{small:?}"
        );
        assert!(large.overflow_bytes >= LARGE * 12 * 1024, "{large:?}");
        assert_eq!(after.tables[0].entries, SMALL / 2);
        assert!(
            after.free_bytes > 0,
            "{profile}: deleting half a table freed no page: {after:?}"
        );
    }
}

#[cfg(feature = "sqlite-db")]
#[test]
fn sqlite_accounts_for_its_btrees_key_index_and_freelist() {
    for profile in ["sqlite-wal", "sqlite-rollback"] {
        let (full, after) = report(profile).expect("SQLite reports space");
        check_full(profile, &full);
        let [small, large] = &full.tables[..] else {
            unreachable!()
        };
        // The head index holds 8 bytes of each 64-byte key (and each row's id), not the key.
        assert!(
            small.index_bytes >= 8 * small.entries && small.index_bytes < small.key_bytes,
            "{profile}: {small:?}"
        );
        assert!(
            large.overflow_bytes >= LARGE * 8 * 1024,
            "{profile}: {large:?}"
        );
        assert_eq!(after.tables[0].entries, SMALL / 2);
        assert!(
            after.free_bytes > 0 || after.tables[0].unused_bytes > full.tables[0].unused_bytes,
            "{profile}: deleting half a table left neither free pages nor unused space: {after:?}"
        );
    }
}

#[cfg(feature = "postgres-db")]
#[test]
fn postgres_accounts_for_heap_index_and_toast() {
    let (full, after) = report("postgres").expect("PostgreSQL reports space");
    check_full("postgres", &full);
    let [small, large] = &full.tables[..] else {
        unreachable!()
    };
    assert!(small.index_bytes > 0, "{small:?}");
    // 12 KiB of one repeated byte compresses: TOAST (or inline compression) holds far less
    // than the values, which is what a store of compressible values is charged.
    assert!(large.stored_bytes < large.value_bytes, "{large:?}");
    assert_eq!(after.tables[0].entries, SMALL / 2);
}

#[test]
fn memory_and_redis_report_no_pages() {
    let mut profiles = vec!["btree"];
    if Profile::enabled().iter().any(|p| p.name() == "redis") {
        profiles.push("redis");
    }
    for profile in profiles {
        assert!(report(profile).is_none(), "{profile}");
    }
}

/// A commit larger than the WAL's limit leaves no WAL behind: it cuts the log to zero bytes
/// before it returns, so the file is not kept at the large commit's size and the next commit,
/// however small, does not pay for cutting it.
#[cfg(feature = "sqlite-db")]
#[test]
fn sqlite_wal_is_cut_by_the_large_commit() {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv::ReadTx;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path(), &["t"], SqliteMode::WalFull).expect("open");
    let t = store.table("t").expect("table");
    let wal = dir.path().join("triebench.sqlite3-wal");
    let wal_len = || std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    let mut w = store.writer().expect("writer");
    for i in 0u32..6_000 {
        w.put(t, &i.to_be_bytes(), &[7; 8 * 1024]).expect("put");
    }
    w.commit().expect("large commit");
    assert_eq!(wal_len(), 0, "the large commit left its WAL");
    for i in 0u32..3 {
        let mut w = store.writer().expect("writer");
        w.put(t, b"small", &i.to_be_bytes()).expect("put");
        w.commit().expect("small commit");
    }
    let after_small = wal_len();
    assert!(
        after_small > 0 && after_small < 64 << 10,
        "three 1-key commits left {after_small} bytes of WAL"
    );
    let r = store.reader().expect("reader");
    assert_eq!(
        r.get(t, &5_999u32.to_be_bytes()).expect("get"),
        Some(vec![7; 8 * 1024])
    );
}
