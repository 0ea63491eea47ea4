//! The two meta pages at the start of an LMDB data file, checked before liblmdb maps it.
//!
//! liblmdb keeps no checksums: it trusts every page number it reads, and a damaged page number
//! sends it outside the map (SIGSEGV/SIGBUS) rather than to an error. What can be checked
//! cheaply is checked here, on the raw file, before liblmdb reads it: each meta page (pages 0
//! and 1) must be marked a meta page and carry its own page number, LMDB's magic
//! (`0xBEEFC0DE`) and data format version (1); both must name the same page size, a power of
//! two from 512 to 64 KiB; the file must hold both meta pages and every page the metas say
//! is in use (`last page + 1` pages); and the roots of LMDB's two B-trees must be pages in
//! that range (or none). A failure is [`KvError::Corrupt`] naming the file and the field.
//!
//! Not checked (so not caught): damage inside the data pages (branch and leaf pages, values),
//! and a meta page whose fields are damaged into other plausible values. liblmdb may then
//! return wrong data, report `MDB_CORRUPTED`, or crash the process.
//!
//! The layout (liblmdb 0.9, 64-bit, native byte order): a page header of 16 bytes
//! (`mp_pgno: u64`, `mp_pad: u16`, `mp_flags: u16`, 4 bytes) and then the meta: `mm_magic:
//! u32`, `mm_version: u32`, `mm_address`, `mm_mapsize`, two `MDB_db` of 48 bytes (the free
//! list's `md_pad` holds the page size; `md_root` is at 40 in each), `mm_last_pg: u64`,
//! `mm_txnid: u64`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{KvError, KvResult};

/// LMDB's magic number.
pub const MAGIC: u32 = 0xBEEF_C0DE;
/// LMDB's data format version (release builds).
pub const DATA_VERSION: u32 = 1;
/// The page header flag of a meta page.
const P_META: u16 = 0x08;
/// "No page" (an empty B-tree's root).
const P_INVALID: u64 = u64::MAX;
/// Page sizes accepted.
const PAGE_SIZES: std::ops::RangeInclusive<u32> = 512..=65536;

/// Offsets within a meta page.
const PGNO_AT: usize = 0;
const FLAGS_AT: usize = 10;
const MAGIC_AT: usize = 16;
const VERSION_AT: usize = 20;
const PSIZE_AT: usize = 40;
const FREE_ROOT_AT: usize = 80;
const MAIN_ROOT_AT: usize = 128;
const LAST_PG_AT: usize = 136;
/// Bytes of a meta page read (up to and including the transaction id).
pub const META_LEN: usize = 152;

/// Offsets of the fields [`check`] validates, for tests that damage them: magic, version,
/// page size, last page.
pub const CHECKED_FIELDS: [(&str, usize, usize); 4] = [
    ("magic", MAGIC_AT, 4),
    ("version", VERSION_AT, 4),
    ("page size", PSIZE_AT, 4),
    ("last page", LAST_PG_AT, 8),
];

/// Checks the meta pages of the data file at `path`, `file_len` bytes long (not empty).
pub fn check(path: &Path, file_len: u64) -> KvResult<()> {
    let corrupt = |detail: String| KvError::Corrupt {
        backend: "lmdb",
        path: path.to_path_buf(),
        detail,
    };
    let mut file = File::open(path).map_err(|e| KvError::io("open", path, e))?;
    let mut read = |offset: u64| -> KvResult<[u8; META_LEN]> {
        let mut buf = [0u8; META_LEN];
        if offset + META_LEN as u64 > file_len {
            return Err(corrupt(format!(
                "the file is {file_len} bytes, too short for its meta page at byte {offset}"
            )));
        }
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut buf))
            .map_err(|e| KvError::io("read", path, e))?;
        Ok(buf)
    };
    let first = read(0)?;
    let page_size = u32_at(&first, PSIZE_AT);
    if !PAGE_SIZES.contains(&page_size) || !page_size.is_power_of_two() {
        return Err(corrupt(format!(
            "meta page 0 names page size {page_size} (LMDB uses a power of two from 512 to \
             65536)"
        )));
    }
    let second = read(u64::from(page_size))?;
    for (number, meta) in [(0u64, &first), (1, &second)] {
        check_meta(number, meta, page_size, file_len).map_err(corrupt)?;
    }
    Ok(())
}

/// Checks one meta page; the error says which field is wrong.
fn check_meta(
    number: u64,
    meta: &[u8; META_LEN],
    page_size: u32,
    file_len: u64,
) -> Result<(), String> {
    let magic = u32_at(meta, MAGIC_AT);
    if magic != MAGIC {
        return Err(format!(
            "meta page {number} has magic {magic:#010x}, not LMDB's {MAGIC:#010x} (not an \
             LMDB file, or a damaged one)"
        ));
    }
    let version = u32_at(meta, VERSION_AT);
    if version != DATA_VERSION {
        return Err(format!(
            "meta page {number} has format version {version}, not {DATA_VERSION}"
        ));
    }
    let flags = u16::from_ne_bytes([meta[FLAGS_AT], meta[FLAGS_AT + 1]]);
    let pgno = u64_at(meta, PGNO_AT);
    if flags & P_META == 0 || pgno != number {
        return Err(format!(
            "page {number} is not marked as meta page {number} (flags {flags:#06x}, page \
             number {pgno})"
        ));
    }
    let own_size = u32_at(meta, PSIZE_AT);
    if own_size != page_size {
        return Err(format!(
            "meta page {number} names page size {own_size}, meta page 0 {page_size}"
        ));
    }
    let last_pg = u64_at(meta, LAST_PG_AT);
    let pages = file_len / u64::from(page_size);
    if last_pg < 1 || last_pg >= pages {
        return Err(format!(
            "meta page {number} says page {last_pg} is the last in use, but the file holds \
             {pages} pages of {page_size} bytes (damaged, or truncated)"
        ));
    }
    for (tree, at) in [("free list", FREE_ROOT_AT), ("main", MAIN_ROOT_AT)] {
        let root = u64_at(meta, at);
        if root != P_INVALID && !(2..=last_pg).contains(&root) {
            return Err(format!(
                "meta page {number} puts the {tree} tree's root at page {root}, outside the \
                 pages in use (2..={last_pg})"
            ));
        }
    }
    Ok(())
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[at..at + 4]);
    u32::from_ne_bytes(b)
}

fn u64_at(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_ne_bytes(b)
}
