//! The version of a store's on-disk layout, recorded in the store itself, so that a build never
//! reads or writes a store laid out otherwise.
//!
//! | version | `main`'s keys | written by |
//! |---:|---|---|
//! | 1 (no marker) | a node's hash as 64 lowercase hex digits, as Transact stores it | triebench before 2026-11-28 |
//! | **2** | a node's hash as its raw 32 bytes (the crate's `node_table` module) | this build |
//!
//! The node *values* (Transact's CBOR, children as hex text) and the roots are the same in
//! both; `change_log` and `duplicate_log` were already keyed by raw hashes.
//!
//! Layout 2 records itself as one row of `main` under [`LAYOUT_KEY`], a key that cannot be a
//! node's (it is not 32 bytes long), holding [`LAYOUT_VERSION`] as 4 big-endian bytes. It is
//! written in the same transaction as the empty root's node, when the trie first opens an empty
//! store ([`MerkleTrie::new`](crate::MerkleTrie::new), [`TrieState::new`](crate::TrieState)).
//! Opening a store checks it in the read that opening does anyway (the empty root's node, or the
//! root asked for), and a prune in the read of the root's change-log entry, before it changes
//! anything:
//!
//! * marker present, this version: the store is used;
//! * marker absent and `main` empty: a fresh store, initialised on first open;
//! * marker absent and `main` holding anything: a layout-1 store,
//!   [`MerkleError::OldStoreLayout`];
//! * a newer version: [`MerkleError::NewerStoreLayout`]; anything else:
//!   [`MerkleError::CorruptLayoutMarker`].
//!
//! A refused store is left as it was: nothing is written before the check passes. There is no
//! conversion: a store is a benchmark's output, re-created by running the fill again.

use std::ops::ControlFlow;

use triebench_kv::{KeyRange, ReadTx, Table, WriteTx};

use crate::{MerkleError, EMPTY_ROOT_HEX};

/// The key of the layout marker in `main`: 16 bytes, so never a node's raw 32-byte hash.
pub const LAYOUT_KEY: &[u8] = b"triebench:layout";

/// The layout this build reads and writes: nodes keyed by their raw 32-byte hash.
pub const LAYOUT_VERSION: u32 = 2;

/// The marker's value as stored: [`LAYOUT_VERSION`], 4 bytes big-endian.
pub const LAYOUT_MARKER: [u8; 4] = LAYOUT_VERSION.to_be_bytes();

/// The `main` key of the node whose hash is `hash` (64 lowercase hex digits, as
/// [`MerkleTrie::root`](crate::MerkleTrie::root) and [`MerkleTrie::prune`](crate::MerkleTrie::prune)
/// give them): its raw 32 bytes. For tools and tests that read or damage `main` through the
/// kv API; [`MerkleError::InvalidHash`] if `hash` is not such a hash.
pub fn node_key(hash: &str) -> Result<[u8; 32], MerkleError> {
    crate::hash::parse_hex_hash(hash.as_bytes())
        .map(|hex| crate::hash::hex_to_raw(&hex))
        .ok_or_else(|| MerkleError::InvalidHash {
            hash: crate::excerpt(hash).into_owned(),
        })
}

/// Entries of `main` that are not nodes in a store of this layout: the layout marker. A
/// count of `main`'s entries less this is its number of nodes.
pub const NON_NODE_ENTRIES: u64 = 1;

/// Whether `marker` (the value under [`LAYOUT_KEY`], if any) is this build's: `Ok(true)` if so,
/// `Ok(false)` if there is none (the caller then decides with [`require_unmarked_empty`]), an
/// error naming what was found otherwise.
pub(crate) fn check_marker(marker: Option<&[u8]>) -> Result<bool, MerkleError> {
    let Some(bytes) = marker else {
        return Ok(false);
    };
    match <[u8; 4]>::try_from(bytes).map(u32::from_be_bytes) {
        Ok(LAYOUT_VERSION) => Ok(true),
        Ok(found) if found > LAYOUT_VERSION => Err(MerkleError::NewerStoreLayout {
            found,
            supported: LAYOUT_VERSION,
        }),
        _ => Err(MerkleError::CorruptLayoutMarker {
            found: hex::encode(&bytes[..bytes.len().min(16)]),
            supported: LAYOUT_VERSION,
        }),
    }
}

/// In one request: whether the store's marker is this build's (as [`check_marker`] says) and
/// whether `main` holds a node under `node_key`: how opening a store at a root checks both.
pub(crate) fn marker_and_node<R: ReadTx>(
    rx: &R,
    main: Table,
    node_key: &[u8],
) -> Result<(bool, bool), MerkleError> {
    let mut marker: Option<Vec<u8>> = None;
    let mut node = false;
    rx.get_many_with(main, &[LAYOUT_KEY, node_key], |i, v| {
        if i == 0 {
            marker = Some(v.to_vec());
        } else {
            node = true;
        }
    })?;
    Ok((check_marker(marker.as_deref())?, node))
}

/// For a store with no marker: `Ok` if `main` is empty (a fresh store), else
/// [`MerkleError::OldStoreLayout`] saying what it holds. Reads one entry at most.
pub(crate) fn require_unmarked_empty<R: ReadTx>(rx: &R, main: Table) -> Result<(), MerkleError> {
    let mut first: Option<usize> = None;
    rx.scan(main, &KeyRange::all(), |key, _| {
        first = Some(key.len());
        ControlFlow::Break(())
    })?;
    let Some(key_len) = first else {
        return Ok(());
    };
    let found = if rx.contains(main, &EMPTY_ROOT_HEX)? {
        "its node table holds the empty root under its 64-hex-digit key and no layout \
         marker: layout 1, nodes keyed by 64 hex digits"
            .to_string()
    } else if key_len == 64 {
        "its node table holds 64-byte keys and no layout marker: layout 1, nodes keyed by 64 \
         hex digits"
            .to_string()
    } else {
        format!(
            "its node table holds entries (the first key {key_len} bytes long) but no layout \
             marker"
        )
    };
    Err(MerkleError::OldStoreLayout {
        found,
        supported: LAYOUT_VERSION,
    })
}

/// Records this build's layout in `main` (in the caller's transaction).
pub(crate) fn write_marker<W: WriteTx>(w: &mut W, main: Table) -> Result<(), MerkleError> {
    w.put(main, LAYOUT_KEY, &LAYOUT_MARKER)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_told_apart() {
        assert!(check_marker(Some(&LAYOUT_MARKER)).expect("current"));
        assert!(!check_marker(None).expect("none"));
        assert!(matches!(
            check_marker(Some(&3u32.to_be_bytes())),
            Err(MerkleError::NewerStoreLayout {
                found: 3,
                supported: 2
            })
        ));
        for bad in [&1u32.to_be_bytes()[..], b"2", b""] {
            assert!(matches!(
                check_marker(Some(bad)),
                Err(MerkleError::CorruptLayoutMarker { .. })
            ));
        }
        assert_ne!(LAYOUT_KEY.len(), 32, "the marker's key cannot be a node's");
    }
}
