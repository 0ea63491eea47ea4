//! Reference counts of duplicate nodes (table `duplicate_log`).
//!
//! A node stored once but added by several commits (or at several positions) is kept once in
//! `main`; `duplicate_log` maps its raw 32-byte hash to the number of additions beyond the
//! first, as a little-endian `u64`. No entry means zero.

use std::ops::ControlFlow;

use triebench_kv::{KeyRange, ReadTx, Table, WriteTx};

use crate::hash::RawHash;
use crate::MerkleError;

/// The extra references to `hash`.
#[cfg(test)]
pub(crate) fn get<R: ReadTx>(rx: &R, table: Table, hash: &RawHash) -> Result<u64, MerkleError> {
    match rx.get_with(table, hash, |v| <[u8; 8]>::try_from(v).map_err(|_| v.len()))? {
        None => Ok(0),
        Some(Ok(bytes)) => Ok(u64::from_le_bytes(bytes)),
        Some(Err(len)) => Err(MerkleError::CorruptRefCount {
            hash: hex::encode(hash),
            len,
        }),
    }
}

/// The extra references to each of `hashes`, in one request where reads are round trips.
pub(crate) fn get_many<R: ReadTx>(
    rx: &R,
    table: Table,
    hashes: &[&RawHash],
) -> Result<Vec<u64>, MerkleError> {
    let mut counts = vec![Ok(0); hashes.len()];
    if hashes.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<&[u8]> = hashes.iter().map(|h| &h[..]).collect();
    rx.get_many_with(table, &keys, |i, v| counts[i] = decode(v))?;
    counts
        .into_iter()
        .zip(hashes)
        .map(|(c, hash)| {
            c.map_err(|len| MerkleError::CorruptRefCount {
                hash: hex::encode(hash),
                len,
            })
        })
        .collect()
}

/// As [`get_many`], for `hashes` in strictly ascending order, read where reads are not round
/// trips by one ordered scan from the first hash to the last, merged with `hashes`, instead
/// of a lookup each: a commit re-adding 31,000 stored nodes asked for 31,000 counts of a
/// table holding a handful, each a search of its own. The scan stops once it has visited as
/// many entries as there are hashes (a large table with few of them in it) and the hashes past
/// where it stopped are looked up one by one, so it never reads much more than the lookups
/// would have. Where reads are round trips, or for a few hashes, it is [`get_many`].
pub(crate) fn get_sorted<R: ReadTx>(
    rx: &R,
    table: Table,
    hashes: &[&RawHash],
) -> Result<Vec<u64>, MerkleError> {
    let (Some(first), Some(last)) = (hashes.first(), hashes.last()) else {
        return Ok(Vec::new());
    };
    if rx.reads_are_round_trips() || hashes.len() < SCAN_MIN {
        return get_many(rx, table, hashes);
    }
    debug_assert!(hashes.windows(2).all(|w| w[0] < w[1]), "strictly ascending");
    let mut counts = vec![0u64; hashes.len()];
    // Hashes before `next` are decided (found, or passed by the scan: absent).
    let mut next = 0;
    let mut visited = 0;
    let mut corrupt = None;
    // The smallest key after `last`: the scan covers `first..=last`.
    let end = [&last[..], &[0]].concat();
    rx.scan(table, &KeyRange::between(&first[..], &end), |key, value| {
        while next < hashes.len() && &hashes[next][..] < key {
            next += 1;
        }
        if next < hashes.len() && &hashes[next][..] == key {
            match decode(value) {
                Ok(count) => counts[next] = count,
                Err(len) => {
                    corrupt = Some((next, len));
                    return ControlFlow::Break(());
                }
            }
            next += 1;
        }
        visited += 1;
        if visited >= hashes.len() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    if let Some((at, len)) = corrupt {
        return Err(MerkleError::CorruptRefCount {
            hash: hex::encode(hashes[at]),
            len,
        });
    }
    if visited >= hashes.len() {
        // Stopped early: the hashes it did not reach, one by one.
        let rest = get_many(rx, table, &hashes[next..])?;
        counts[next..].copy_from_slice(&rest);
    }
    Ok(counts)
}

/// The fewest hashes [`get_sorted`] reads by a scan: for fewer, lookups cost less than
/// setting up the scan's range.
const SCAN_MIN: usize = 64;

/// A stored count, or the length of a value that is not one.
pub(crate) fn decode(v: &[u8]) -> Result<u64, usize> {
    <[u8; 8]>::try_from(v)
        .map(u64::from_le_bytes)
        .map_err(|_| v.len())
}

/// Sets the extra references to `hash`, deleting the entry at zero.
pub(crate) fn set<W: WriteTx>(
    w: &mut W,
    table: Table,
    hash: &RawHash,
    count: u64,
) -> Result<(), MerkleError> {
    if count == 0 {
        w.delete(table, hash)?;
    } else {
        w.put(table, hash, &count.to_le_bytes())?;
    }
    Ok(())
}

/// Sets the extra references to each of `counts`' hashes, as [`set`] does one by one: the
/// non-zero ones in one [`WriteTx::put_many`], which an ordered batch (`counts` in ascending
/// hash order) lets the `btree` store build in one pass instead of a search per key (a commit
/// re-adding 31,000 stored nodes spent ~1.5 ms on those searches).
pub(crate) fn set_many<W: WriteTx>(
    w: &mut W,
    table: Table,
    counts: &[(&RawHash, u64)],
) -> Result<(), MerkleError> {
    if counts.is_empty() {
        return Ok(());
    }
    // Gathered first: a filtered iterator's size hint is 0, which `put_many` would take for a
    // small batch and insert key by key.
    let puts: Vec<(&RawHash, [u8; 8])> = counts
        .iter()
        .filter(|&&(_, count)| count > 0)
        .map(|&(hash, count)| (hash, count.to_le_bytes()))
        .collect();
    w.put_many(
        table,
        puts.iter().map(|(hash, value)| (&hash[..], &value[..])),
    )?;
    for &(hash, count) in counts {
        if count == 0 {
            w.delete(table, hash)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Tables;
    use triebench_kv::btree::BTreeStore;
    use triebench_kv::Store;

    fn hash(i: u32) -> RawHash {
        let mut h = [7u8; 32];
        h[..4].copy_from_slice(&i.to_be_bytes());
        h
    }

    /// Read by a scan, the counts are those of a lookup each, whether the scan covers the
    /// table (few entries) or stops early and looks up the rest (an entry for every hash
    /// asked and more between them), for counts stored in the table or pending in the
    /// transaction; a value that is not a count is an error either way.
    #[test]
    fn sorted_reads_are_lookups() {
        for every in [1, 2, 7, 300] {
            let store = BTreeStore::open(crate::TABLES).expect("store");
            let table = Tables::resolve(&store).expect("tables").duplicate_log;
            let mut w = store.writer().expect("writer");
            for i in (0..3000).step_by(every) {
                w.put(table, &hash(i), &u64::from(i + 1).to_le_bytes())
                    .expect("put");
            }
            w.commit().expect("commit");
            let mut w = store.writer().expect("writer");
            w.put(table, &hash(1000), &5u64.to_le_bytes()).expect("put");
            let asked: Vec<RawHash> = (100..2900).step_by(3).map(hash).collect();
            let asked: Vec<&RawHash> = asked.iter().collect();
            let by_scan = get_sorted(&w, table, &asked).expect("scan");
            let by_lookups = get_many(&w, table, &asked).expect("lookups");
            assert_eq!(by_scan, by_lookups, "every {every}");
            assert!(by_scan.iter().any(|&c| c > 0), "every {every}");
            w.put(table, &hash(2500), b"bad").expect("put");
            assert!(matches!(
                get_sorted(&w, table, &asked),
                Err(MerkleError::CorruptRefCount { len: 3, .. })
            ));
        }
    }
}
