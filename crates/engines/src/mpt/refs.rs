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

fn count<W: WriteTx>(w: &W, refs: Table, hash: &Hash) -> Result<u64, EngineError> {
    match w.get(refs, hash)? {
        None => Ok(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes.as_slice())
            .map(u64::from_be_bytes)
            .map_err(|_| corrupt("a reference count not of 8 bytes")),
    }
}

/// Stores a version's new nodes (`stored`; those already stored are skipped, their references
/// counted when they were stored) and counts the references they make and the version's
/// `root`.
pub(crate) fn commit<W: WriteTx>(
    w: &mut W,
    tables: Tables,
    stored: &BTreeMap<Hash, Vec<u8>>,
    root: &Hash,
) -> Result<(), EngineError> {
    let mut added: BTreeMap<Hash, u64> = BTreeMap::new();
    for (hash, bytes) in stored {
        if w.contains(tables.nodes, hash)? {
            continue;
        }
        w.put(tables.nodes, hash, bytes)?;
        for child in references(bytes)? {
            *added.entry(child).or_default() += 1;
        }
    }
    *added.entry(*root).or_default() += 1;
    for (hash, n) in added {
        let now = count(w, tables.refs, &hash)? + n;
        w.put(tables.refs, &hash, &now.to_be_bytes())?;
    }
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
