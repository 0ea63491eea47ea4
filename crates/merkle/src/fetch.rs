//! Reading nodes in as few round trips as the backend allows: the store's cache of nodes by hash
//! first ([`ContentCache`]), then every node a level of a batch needs in one request
//! ([`ReadTx::get_many_with`]).
//!
//! A batch's paths are walked level by level before the batch is applied: at each level the
//! nodes not yet known are asked for together, so a commit costs one request per level of the
//! trie that is not cached, whatever the number of addresses it changes, instead of one per
//! node. On an in-process backend (no cache, reads not round trips) nothing is fetched ahead and
//! the batch reads each node as it opens it, as before.
//!
//! # Why the cache cannot make a commit wrong
//!
//! A node is stored under the hash of its encoding, so a cached node is never stale: it is what
//! the store holds under that hash, while the store holds it. Whether it still holds it is never
//! answered from the cache: a commit's existence checks before storing a node (see `write`) and
//! the check that a root exists (`at_root`, `set_root`) ask the store, inside the transaction
//! for the former, so a node another process pruned is written again. What the cache serves is
//! the content of nodes below a root the store was found to hold; a stored node's children are
//! stored (a commit writes a node with its subtree, and a prune never deletes a node a live root
//! reads), so those reads would find the same bytes in the store. A prune by this process evicts
//! what it deleted.

use std::collections::HashMap;

use triebench_kv::{ContentCache, ReadTx};

use crate::address;
use crate::hash::HexHash;
use crate::node::find_child;
use crate::node_table::NodeTable;
use crate::MerkleError;
use crate::StateChange;

/// Nodes fetched ahead of a batch, by hash.
pub(crate) type Fetched = HashMap<HexHash, Vec<u8>>;

/// Whether fetching a batch's nodes ahead pays: the store keeps a cache, or its reads are round
/// trips to a server.
pub(crate) fn worth_it<R: ReadTx>(rx: &R, cache: Option<&ContentCache>) -> bool {
    cache.is_some() || rx.reads_are_round_trips()
}

/// The stored nodes on the paths of `changes` below `root`, level by level: each level's nodes
/// from `cache` where it has them, the rest in one request, which also fills `cache`. A node
/// missing from the store or that does not decode is left out: the batch then reads it itself
/// and reports it.
pub(crate) fn batch_paths<R: ReadTx>(
    rx: &R,
    cache: Option<&ContentCache>,
    main: NodeTable,
    root: &HexHash,
    changes: &[StateChange],
) -> Result<Fetched, MerkleError> {
    let paths = changes
        .iter()
        .map(|c| match c {
            StateChange::Set { address, .. } | StateChange::Delete { address } => {
                address::token_iter(address).map(Iterator::collect::<Vec<u8>>)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut fetched = Fetched::with_capacity(paths.iter().map(Vec::len).sum::<usize>() + 1);
    // The nodes of the current level, each with the changes whose path goes through it.
    let mut level: Vec<(HexHash, Vec<u32>)> = vec![(*root, (0..paths.len() as u32).collect())];
    let mut depth = 0usize;
    while !level.is_empty() {
        let mut missing: Vec<HexHash> = Vec::new();
        for (hash, _) in &level {
            if fetched.contains_key(hash) {
                continue;
            }
            match cache.and_then(|c| c.get_with(hash, <[u8]>::to_vec)) {
                Some(bytes) => {
                    fetched.insert(*hash, bytes);
                }
                None => missing.push(*hash),
            }
        }
        if !missing.is_empty() {
            main.get_many_with(rx, &missing, |i, bytes| {
                if let Some(cache) = cache {
                    cache.insert(&missing[i], bytes);
                }
                fetched.insert(missing[i], bytes.to_vec());
            })?;
        }
        let mut next: HashMap<HexHash, Vec<u32>> = HashMap::new();
        for (hash, through) in level {
            let Some(bytes) = fetched.get(&hash) else {
                continue;
            };
            for change in through {
                let Some(&token) = paths[change as usize].get(depth) else {
                    continue;
                };
                if let Ok(Some(child)) = find_child(bytes, token) {
                    next.entry(child).or_default().push(change);
                }
            }
        }
        level = next.into_iter().collect();
        depth += 1;
    }
    Ok(fetched)
}

/// `f` of the stored node `hash`: from `cache` if it has it, else from the store, filling the
/// cache (`None`: not stored).
pub(crate) fn node_with<R: ReadTx, T>(
    rx: &R,
    cache: Option<&ContentCache>,
    main: NodeTable,
    hash: &HexHash,
    f: impl FnOnce(&[u8]) -> T,
) -> Result<Option<T>, MerkleError> {
    let Some(cache) = cache else {
        return Ok(main.get_with(rx, hash, f)?);
    };
    let mut f = Some(f);
    if let Some(found) = cache.get_with(hash, |bytes| f.take().map(|f| f(bytes))) {
        return Ok(found);
    }
    let Some(f) = f else {
        return Ok(None);
    };
    Ok(main.get_with(rx, hash, |bytes| {
        cache.insert(hash, bytes);
        f(bytes)
    })?)
}
