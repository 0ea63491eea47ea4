//! A damaged LMDB store (issue 34): random byte flips, reproducible from fixed seeds, in the
//! meta pages and in the data pages of a real store; each damaged copy is opened and read in a
//! child process (this test binary re-run), so a crash is seen as a signal, not as the test
//! harness dying.
//!
//! - Meta pages: each of [`META_SEEDS`] damages one byte of a field the open checks (magic,
//!   version, page size, last page number; see `triebench_kv::lmdb::meta`) in either meta
//!   page. Every one must be a clear [`KvError::Corrupt`] naming the field. Before the check, with
//!   4 KiB pages, six of these seeds killed the process with SIGBUS, two panicked, four were
//!   "cannot allocate memory" and two opened as if nothing were wrong.
//! - Data pages: each of [`DATA_SEEDS`] flips [`DATA_FLIPS`] bytes in the pages in use after
//!   the meta pages. liblmdb keeps no checksums, so this is documented, not prevented: the test
//!   prints, per seed, whether the reads came back right, silently wrong, as an error, or the
//!   process was killed by a signal (with 4 KiB pages: seed 3505 by SIGSEGV, and for `lmdb`
//!   four more by SIGBUS), and asserts only that nothing else happens (no hang, no panic).
#![cfg(feature = "lmdb")]

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use triebench_kv::lmdb::meta::CHECKED_FIELDS;
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv::{KvError, ReadTx, Store, WriteTx};
use triebench_kv_conformance::TABLES;

/// Set in the child: the damaged store's directory.
const CHILD_DIR: &str = "TRIEBENCH_LMDB_CORRUPT_DIR";
/// Set in the child: `true` for the `lmdb-async` flags.
const CHILD_ASYNC: &str = "TRIEBENCH_LMDB_CORRUPT_ASYNC";
/// Seeds of the meta page damage.
const META_SEEDS: std::ops::Range<u64> = 3400..3432;
/// Seeds of the data page damage.
const DATA_SEEDS: std::ops::Range<u64> = 3500..3516;
/// Bytes flipped per data page case.
const DATA_FLIPS: usize = 16;
/// Entries written to the store.
const ENTRIES: u32 = 3000;
/// A small map: the `lmdb-async` data file is this long, and is copied per case.
const MAP_SIZE: usize = 16 << 20;

/// SplitMix64: a small seeded generator, so a seed names the same damage everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn open(dir: &Path, transact_flags: bool) -> Result<LmdbStore, KvError> {
    LmdbStore::open(
        dir,
        TABLES,
        LmdbOptions {
            map_size: MAP_SIZE,
            transact_flags,
        },
    )
}

fn key(i: u32) -> Vec<u8> {
    format!("{i:08}").into_bytes()
}

fn value(i: u32) -> Vec<u8> {
    let len = 40 + (i as usize * 7) % 200;
    (0..len).map(|j| (i as usize + j) as u8).collect()
}

/// The store's data file.
fn data_file(dir: &Path, transact_flags: bool) -> PathBuf {
    if transact_flags {
        dir.join("triebench.lmdb")
    } else {
        dir.join("lmdb/data.mdb")
    }
}

fn write_store(dir: &Path, transact_flags: bool) {
    let store = open(dir, transact_flags).expect("create store");
    let main = store.table("main").expect("main table");
    for chunk in 0..30 {
        let mut w = store.writer().expect("writer");
        for i in (chunk * ENTRIES / 30)..((chunk + 1) * ENTRIES / 30) {
            w.insert(main, &key(i), &value(i)).expect("insert");
        }
        w.commit().expect("commit");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Page size and pages in use, from meta page 0 (of an undamaged file).
fn layout(file: &Path) -> (u64, u64) {
    let bytes = std::fs::read(file).expect("read data file");
    let page_size = u32::from_ne_bytes(bytes[40..44].try_into().expect("4 bytes"));
    let last = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let page_size = u64::from(page_size);
    let last_pg = last(136).max(last(page_size as usize + 136));
    (page_size, last_pg + 1)
}

fn flip(file: &Path, offset: u64, xor: u8) {
    let mut bytes = std::fs::read(file).expect("read data file");
    bytes[offset as usize] ^= xor;
    std::fs::write(file, bytes).expect("write data file");
}

/// Opens and reads the store in a child; returns what happened, in one line.
fn outcome(dir: &Path, transact_flags: bool) -> String {
    let exe = std::env::current_exe().expect("test executable");
    let out = Command::new(exe)
        .args([
            "--exact",
            &crate::test_name(module_path!(), "corrupt_child"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir)
        .env(CHILD_ASYNC, transact_flags.to_string())
        .output()
        .expect("run child");
    if let Some(signal) = out.status.signal() {
        return format!("killed by signal {signal}");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    // libtest prints the test's name on the same line, before it.
    match stdout
        .lines()
        .find_map(|l| l.split_once("outcome: ").map(|(_, rest)| rest))
    {
        Some(line) => line.to_string(),
        None => format!(
            "no outcome (status {}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// The child half: opens the store named by the environment and reads every entry.
#[test]
fn corrupt_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let transact_flags = std::env::var(CHILD_ASYNC).is_ok_and(|v| v == "true");
    let report = |result: Result<u32, KvError>| match result {
        Ok(0) => "right".to_string(),
        Ok(n) => format!("wrong {n}"),
        Err(e @ KvError::Corrupt { .. }) => format!("corrupt: {e}"),
        Err(e) => format!("error: {e}"),
    };
    let read_all = || -> Result<u32, KvError> {
        let store = open(Path::new(&dir), transact_flags)?;
        let reader = store.reader()?;
        let main = store.table("main").expect("main table");
        let mut wrong = 0;
        for i in 0..ENTRIES {
            let got = reader.get_with(main, &key(i), |v| v == value(i).as_slice())?;
            if got != Some(true) {
                wrong += 1;
            }
        }
        Ok(wrong)
    };
    println!("outcome: {}", report(read_all()));
}

#[test]
fn damaged_meta_pages_are_reported_corrupt() {
    for transact_flags in [false, true] {
        let root = tempfile::tempdir().expect("temp dir");
        let pristine = root.path().join("pristine");
        write_store(&pristine, transact_flags);
        let (page_size, _) = layout(&data_file(&pristine, transact_flags));
        assert_eq!(outcome(&pristine, transact_flags), "right");
        let mut unclear = Vec::new();
        for seed in META_SEEDS {
            let mut rng = Rng(seed);
            let dir = root.path().join(format!("meta-{seed}"));
            copy_dir(&pristine, &dir);
            let meta = rng.below(2);
            let (field, at, len) = CHECKED_FIELDS[rng.below(CHECKED_FIELDS.len() as u64) as usize];
            // The last page number's upper bytes: a flip there names pages far past the file
            // (a flip of its low bytes can name another page in use, which is not detectable).
            let byte = if field == "last page" {
                3 + rng.below(5)
            } else {
                rng.below(len as u64)
            };
            let xor = 1 + rng.below(255) as u8;
            let offset = meta * page_size + at as u64 + byte;
            flip(&data_file(&dir, transact_flags), offset, xor);
            let got = outcome(&dir, transact_flags);
            println!(
                "seed {seed} (async {transact_flags}): meta {meta} {field} byte {byte} ^ \
                 {xor:#04x}: {got}"
            );
            if !(got.starts_with("corrupt: ") && got.contains(field_word(field))) {
                unclear.push(format!("seed {seed}: {field} of meta page {meta}: {got}"));
            }
            std::fs::remove_dir_all(&dir).expect("remove copy");
        }
        assert!(
            unclear.is_empty(),
            "async {transact_flags}: damaged meta pages without a clear error:\n{}",
            unclear.join("\n")
        );
    }
}

/// A word the error message uses for `field`.
fn field_word(field: &str) -> &str {
    match field {
        "magic" => "magic",
        "version" => "version",
        "page size" => "page",
        _ => "page",
    }
}

#[test]
fn damaged_data_pages_end_in_a_known_outcome() {
    for transact_flags in [false, true] {
        let root = tempfile::tempdir().expect("temp dir");
        let pristine = root.path().join("pristine");
        write_store(&pristine, transact_flags);
        let (page_size, pages) = layout(&data_file(&pristine, transact_flags));
        let mut tally = std::collections::BTreeMap::<String, Vec<u64>>::new();
        for seed in DATA_SEEDS {
            let mut rng = Rng(seed);
            let dir = root.path().join(format!("data-{seed}"));
            copy_dir(&pristine, &dir);
            let file = data_file(&dir, transact_flags);
            // Half the flips anywhere in the pages in use, half in page headers and node
            // offsets (a page's first 64 bytes), where liblmdb reads page numbers and offsets.
            for n in 0..DATA_FLIPS {
                let page = 2 + rng.below(pages - 2);
                let within = if n % 2 == 0 {
                    rng.below(page_size)
                } else {
                    rng.below(64)
                };
                flip(&file, page * page_size + within, 1 + rng.below(255) as u8);
            }
            let got = outcome(&dir, transact_flags);
            println!("seed {seed} (async {transact_flags}): {got}");
            let kind = got.split([' ', ':']).next().unwrap_or_default().to_string();
            assert!(
                ["right", "wrong", "corrupt", "error", "killed"].contains(&kind.as_str()),
                "seed {seed}: {got}"
            );
            tally.entry(got).or_default().push(seed);
            std::fs::remove_dir_all(&dir).expect("remove copy");
        }
        // What liblmdb does with damaged data pages (no checksums): printed for the record.
        for (what, seeds) in &tally {
            println!("async {transact_flags}: {what}: seeds {seeds:?}");
        }
    }
}
