//! Reading a proof's nodes from the store: the walk of `descend`, keeping each node's bytes.

use triebench_kv::{ContentCache, ReadTx};

use super::path::Proof;
use crate::fetch;
use crate::hash::{hex_string, HexHash};
use crate::node::Layout;
use crate::node_table::NodeTable;
use crate::MerkleError;

/// The proof of the address whose tokens are `tokens` under `root`: the stored nodes from the
/// root down to the address's node, or to the first node with no child for the next token.
/// Each node is validated as it is read, so a damaged store is [`MerkleError::CorruptNode`]
/// here rather than a proof that does not verify.
pub(crate) fn build<R: ReadTx>(
    rx: &R,
    cache: Option<&ContentCache>,
    main: NodeTable,
    root: &HexHash,
    tokens: &[u8],
) -> Result<Proof, MerkleError> {
    let mut nodes = Vec::with_capacity(tokens.len() + 1);
    let mut hash = *root;
    for depth in 0..=tokens.len() {
        let read = fetch::node_with(rx, cache, main, &hash, |bytes| {
            let child = Layout::parse(bytes).map(|layout| {
                let token = tokens.get(depth)?;
                let i = layout.find(bytes, *token).ok()?;
                Some(layout.hash(bytes, i))
            });
            (bytes.to_vec(), child)
        })?;
        let Some((bytes, child)) = read else {
            return Err(MerkleError::MissingNode {
                hash: hex_string(&hash),
            });
        };
        nodes.push(bytes);
        match child {
            Ok(Some(child)) => hash = child,
            Ok(None) => break,
            Err(source) => {
                return Err(MerkleError::CorruptNode {
                    hash: hex_string(&hash),
                    source,
                })
            }
        }
    }
    Ok(Proof::from_nodes(nodes))
}
