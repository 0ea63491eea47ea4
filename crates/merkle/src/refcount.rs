//! Reference counts of duplicate nodes (table `duplicate_log`).
//!
//! A node stored once but added by several commits (or at several positions) is kept once in
//! `main`; `duplicate_log` maps its raw 32-byte hash to the number of additions beyond the
//! first, as a little-endian `u64`. No entry means zero.

use triebench_kv::{ReadTx, Table, WriteTx};

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
