//! Pruning with Transact's semantics, made safe for any order of calls.
//!
//! * A root without a change-log entry (the empty root, a root already pruned, a root this
//!   store never committed) is left alone.
//! * A root that commits **reached again** (a commit that changed nothing returned it, or a
//!   commit ended at it while it was live; see
//!   [`reached_again`](crate::ChangeLogEntry::reached_again)) is a head once more for each of
//!   them: a prune of it takes one of those off its count and releases nothing. Transact keeps
//!   such a root through its node reference counts (each of those commits adds a reference to
//!   every node on the paths it touched); without this, pruning "the previous root" after a
//!   block that changed nothing would delete the current head.
//! * A **fork tip** (no successors) loses its additions: each is released once (its
//!   reference count decremented, or the node deleted when no other reference remains), its
//!   entry is deleted and it is removed from its parent's successors.
//! * A root with **one successor** loses what that successor replaced, plus its own root node
//!   (released the same way), and its entry is deleted. Unlike Transact, this happens only when
//!   the root is the oldest live root of its line (the parent it was committed on is gone: it
//!   has no entry, or its entry, written by a later commit that reached the same mapping
//!   again, does not list this root as a successor): an older live root may still read those
//!   nodes, so pruning out of order would corrupt it. Prune oldest first, as Sawtooth does; an
//!   out-of-order call is a no-op.
//! * A root with **several successors** is kept.
//!
//! The empty root node is never released.

use triebench_kv::{Store, WriteTx};

use crate::changelog::{self, Hash32};
use crate::hash::{hex_string, to_hex, HexHash, RawHash};
use crate::tables::{decode_entry, read_additions, read_entry, Tables};
use crate::{refcount, store_layout, MerkleError, EMPTY_ROOT_HEX};

/// Prunes `root` in a transaction of its own and returns the hashes of the nodes deleted from
/// storage.
pub(crate) fn prune<S: Store>(
    store: &S,
    tables: &Tables,
    root: &RawHash,
) -> Result<Vec<String>, MerkleError> {
    let mut w = store.writer()?;
    let pruned = prune_in(&mut w, tables, root)?;
    if pruned.wrote {
        w.commit()?;
    }
    Ok(pruned.deleted)
}

/// What [`prune_in`] did to the transaction it was given.
#[derive(Debug, Default)]
pub(crate) struct Pruned {
    /// The hashes (hex) of the nodes deleted, each once, in sorted order.
    pub(crate) deleted: Vec<String>,
    /// Whether anything was written: a prune that keeps its root writes nothing, and its
    /// transaction need not be committed.
    pub(crate) wrote: bool,
}

/// Prunes `root` within `w`, which may hold other writes already (a commit's, see
/// [`MerkleTrie::commit_and_prune`](crate::MerkleTrie::commit_and_prune)): the prune reads
/// through `w` and so sees them, exactly as a prune run after that transaction committed would.
pub(crate) fn prune_in<W: WriteTx>(
    w: &mut W,
    tables: &Tables,
    root: &RawHash,
) -> Result<Pruned, MerkleError> {
    // The root's entry and the store's layout marker in one request: nothing of a store keyed
    // otherwise is changed (see `store_layout`), and a prune costs no extra round trip for it.
    let mut got: [Option<Vec<u8>>; 2] = [None, None];
    w.get_many_across(
        &[
            (tables.change_log, &[&root[..]]),
            (tables.main.table(), &[store_layout::LAYOUT_KEY]),
        ],
        |a, _, v| got[a] = Some(v.to_vec()),
    )?;
    let [entry, marker] = got;
    if !store_layout::check_marker(marker.as_deref())? {
        store_layout::require_unmarked_empty(&*w, tables.main.table())?;
    }
    let Some((mut entry, apart)) = decode_entry(root, entry.as_deref())? else {
        return Ok(Pruned::default());
    };
    if entry.reached_again > 0 {
        entry.reached_again -= 1;
        w.put(tables.change_log, root, &changelog::encode(&entry, apart))?;
        return Ok(Pruned {
            deleted: Vec::new(),
            wrote: true,
        });
    }
    let deleted = match entry.successors.len() {
        0 => {
            let additions = if apart {
                read_additions(&*w, tables, root)?
            } else {
                std::mem::take(&mut entry.additions)
            };
            let removed = release(w, tables, &additions)?;
            delete_entry(w, tables, root, apart)?;
            if let Some((mut parent, parent_apart)) = read_entry(&*w, tables, &entry.parent)? {
                parent.successors.retain(|s| s.root != *root);
                let bytes = changelog::encode(&parent, parent_apart);
                w.put(tables.change_log, &entry.parent, &bytes)?;
            }
            removed
        }
        1 => {
            // The parent this root was committed on is live while its entry lists this root
            // as a successor. An entry that does not list it was written by a later commit that
            // reached the parent's mapping again after that parent was pruned (A -> B -> A):
            // it holds its own references, so this root is the oldest of its line.
            let parent = read_entry(&*w, tables, &entry.parent)?;
            if parent.is_some_and(|(p, _)| p.successors.iter().any(|s| s.root == *root)) {
                return Ok(Pruned::default());
            }
            let mut hashes = entry
                .successors
                .pop()
                .map(|s| s.deletions)
                .unwrap_or_default();
            hashes.push(*root);
            let removed = release(w, tables, &hashes)?;
            delete_entry(w, tables, root, apart)?;
            removed
        }
        _ => return Ok(Pruned::default()),
    };
    Ok(Pruned {
        deleted,
        wrote: true,
    })
}

/// Deletes `root`'s change-log entry, and its additions where they are stored `apart`.
fn delete_entry<W: WriteTx>(
    w: &mut W,
    tables: &Tables,
    root: &RawHash,
    apart: bool,
) -> Result<(), MerkleError> {
    w.delete(tables.change_log, root)?;
    if apart {
        w.delete(tables.change_log, &changelog::additions_key(root))?;
    }
    Ok(())
}

/// Releases one reference per listed occurrence; deletes nodes left without references.
/// Returns the deleted nodes' hashes (hex), each once, in sorted order.
///
/// Every distinct hash's reference count and whether its node is stored are read in one
/// request (see [`triebench_kv::ReadTx::get_many_across`]) before any change: the hashes are distinct, so no
/// answer depends on another hash's release. A prune thus costs a few round trips to a
/// server, not two per node.
fn release<W: WriteTx>(
    w: &mut W,
    tables: &Tables,
    hashes: &[Hash32],
) -> Result<Vec<String>, MerkleError> {
    let mut sorted = hashes.to_vec();
    sorted.sort_unstable();
    // Distinct hashes with their occurrences, the empty root left out.
    let mut runs: Vec<(Hash32, HexHash, u64)> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let hash = sorted[i];
        let mut run = 1u64;
        while i + (run as usize) < sorted.len() && sorted[i + run as usize] == hash {
            run += 1;
        }
        i += run as usize;
        let hex = to_hex(&hash);
        if hex != EMPTY_ROOT_HEX {
            runs.push((hash, hex, run));
        }
    }
    // Both tables are keyed by the raw hash.
    let raws: Vec<&[u8]> = runs.iter().map(|(h, _, _)| &h[..]).collect();
    let mut counts: Vec<Result<u64, usize>> = vec![Ok(0); runs.len()];
    let mut stored = vec![false; runs.len()];
    if !runs.is_empty() {
        w.get_many_across(
            &[(tables.duplicate_log, &raws), (tables.main.table(), &raws)],
            |a, i, v| match a {
                0 => counts[i] = refcount::decode(v),
                _ => stored[i] = true,
            },
        )?;
    }
    let mut removed = Vec::new();
    for (((hash, hex, run), count), stored) in runs.iter().zip(counts).zip(stored) {
        let extra = count.map_err(|len| MerkleError::CorruptRefCount {
            hash: hex::encode(hash),
            len,
        })?;
        if extra >= *run {
            refcount::set(w, tables.duplicate_log, hash, extra - run)?;
        } else {
            if extra > 0 {
                refcount::set(w, tables.duplicate_log, hash, 0)?;
            }
            if stored {
                w.delete(tables.main.table(), hash)?;
                removed.push(hex_string(hex));
            }
        }
    }
    Ok(removed)
}
