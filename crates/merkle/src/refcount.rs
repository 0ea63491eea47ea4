//! Reference counts of duplicate nodes (table `duplicate_log`).
//!
//! A node stored once but added by several commits (or at several positions) is kept once in
//! `main`; `duplicate_log` maps its raw 32-byte hash to the number of additions beyond the
//! first, as a little-endian `u64`. No entry means zero.

use triebench_kv::{ReadTx, Table, WriteTx};

use crate::hash::RawHash;
use crate::MerkleError;

/// The extra references to `hash`.
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
