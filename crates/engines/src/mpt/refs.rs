//! Reference counts, so that pruning can release nodes: a stored node's count is the number of
//! references to it from stored nodes (a node is stored once, however many parents name it)
//! plus the number of kept versions whose root it is. A version's commit stores its new nodes
//! and counts what they refer to; pruning a version drops its root's count, and a node whose
//! count reaches zero is deleted and drops its children's counts in turn (a trie's nodes form no
//! cycle). Everything happens inside the caller's write transaction.

use std::collections::BTreeMap;

use triebench_kv::{Table, WriteTx};

use super::node::{corrupt, decode, Hash, Node};
use crate::EngineError;

/// The hashes a node refers to (through inline children too), as often as it refers to them.
pub(crate) fn references(bytes: &[u8]) -> Result<Vec<Hash>, EngineError> {
    fn walk(node: &Node, out: &mut Vec<Hash>) {
        match node {
            Node::Empty | Node::Leaf { .. } => {}
            Node::Hash(hash) => out.push(*hash),
            Node::Extension { child, .. } => walk(child, out),
            Node::Branch { children, .. } => children.iter().for_each(|c| walk(c, out)),
        }
    }
    let mut out = Vec::new();
    walk(&decode(bytes)?, &mut out);
    Ok(out)
}

/// The nodes and counts tables.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tables {
    /// hash -> RLP encoding.
    pub(crate) nodes: Table,
    /// hash -> reference count, 8 bytes big-endian.
    pub(crate) refs: Table,
}

/// A stored count.
pub(crate) fn decode_count(bytes: &[u8]) -> Result<u64, EngineError> {
    <[u8; 8]>::try_from(bytes)
        .map(u64::from_be_bytes)
        .map_err(|_| corrupt("a reference count not of 8 bytes"))
}

fn count<W: WriteTx>(w: &W, refs: Table, hash: &Hash) -> Result<u64, EngineError> {
    w.get_with(refs, hash, decode_count)?.unwrap_or(Ok(0))
}

/// Stores a version's new nodes (`stored`; those already stored are skipped, their references
/// counted when they were stored) and counts the references they make and the version's
/// `root`. The existence checks and the counts are read in one batched lookup each
/// ([`get_many_with`](triebench_kv::ReadTx::get_many_with): one round trip on a server
/// backend), and written with [`put_many`](WriteTx::put_many).
pub(crate) fn commit<W: WriteTx>(
    w: &mut W,
    tables: Tables,
    stored: &BTreeMap<Hash, Vec<u8>>,
    root: &Hash,
) -> Result<(), EngineError> {
    let keys: Vec<&[u8]> = stored.keys().map(|k| k.as_slice()).collect();
    let mut present = vec![false; keys.len()];
    w.get_many_with(tables.nodes, &keys, |i, _| present[i] = true)?;
    let mut added: BTreeMap<Hash, u64> = BTreeMap::new();
    let mut new = Vec::new();
    for ((hash, bytes), present) in stored.iter().zip(present) {
        if present {
            continue;
        }
        new.push((hash.as_slice(), bytes.as_slice()));
        for child in references(bytes)? {
            *added.entry(child).or_default() += 1;
        }
    }
    w.put_many(tables.nodes, new)?;
    *added.entry(*root).or_default() += 1;

    let keys: Vec<&[u8]> = added.keys().map(|k| k.as_slice()).collect();
    let mut counts = vec![0u64; keys.len()];
    let mut damaged = None;
    w.get_many_with(tables.refs, &keys, |i, bytes| match decode_count(bytes) {
        Ok(n) => counts[i] = n,
        Err(e) => damaged = Some(e),
    })?;
    if let Some(e) = damaged {
        return Err(e);
    }
    let updated: Vec<(&[u8], [u8; 8])> = added
        .iter()
        .zip(counts)
        .map(|((hash, n), before)| (hash.as_slice(), (before + n).to_be_bytes()))
        .collect();
    w.put_many(tables.refs, updated.iter().map(|(k, v)| (*k, v.as_slice())))?;
    Ok(())
}

/// Drops one count of each of `roots` (a pruned version each), deleting every node whose
/// count reaches zero and dropping its children's counts in turn.
pub(crate) fn release<W: WriteTx>(
    w: &mut W,
    tables: Tables,
    roots: Vec<Hash>,
) -> Result<(), EngineError> {
    let mut pending = roots;
    while let Some(hash) = pending.pop() {
        match count(w, tables.refs, &hash)? {
            0 => return Err(corrupt("a stored node's reference count is missing")),
            1 => {
                w.delete(tables.refs, &hash)?;
                let bytes = w
                    .get(tables.nodes, &hash)?
                    .ok_or_else(|| corrupt("a counted node is not stored"))?;
                w.delete(tables.nodes, &hash)?;
                pending.extend(references(&bytes)?);
            }
            n => w.put(tables.refs, &hash, &(n - 1).to_be_bytes())?,
        }
    }
    Ok(())
}
