//! Following an address's tokens down from a root: the walk every read starts with.

use triebench_kv::{ContentCache, ReadTx};

use crate::fetch;
use crate::hash::{hex_string, HexHash};
use crate::node::find_child;
use crate::node_table::NodeTable;
use crate::MerkleError;

/// Hash of the node at the token path below `root`, `None` if the path leaves the trie. Nodes
/// come from `cache` when it has them (a store whose reads are round trips keeps one).
pub(crate) fn descend<R: ReadTx>(
    rx: &R,
    cache: Option<&ContentCache>,
    main: NodeTable,
    root: &HexHash,
    tokens: &[u8],
) -> Result<Option<HexHash>, MerkleError> {
    let mut hash = *root;
    for &token in tokens {
        let child = fetch::node_with(rx, cache, main, &hash, |bytes| find_child(bytes, token))?;
        hash = match child {
            Some(Ok(Some(child))) => child,
            Some(Ok(None)) => return Ok(None),
            Some(Err(source)) => {
                return Err(MerkleError::CorruptNode {
                    hash: hex_string(&hash),
                    source,
                })
            }
            None => {
                return Err(MerkleError::MissingNode {
                    hash: hex_string(&hash),
                })
            }
        };
    }
    Ok(Some(hash))
}
