//! Following an address's tokens down from a root: the walk every read starts with.

use triebench_kv::{ReadTx, Table};

use crate::hash::{hex_string, HexHash};
use crate::node::find_child;
use crate::MerkleError;

/// Hash of the node at the token path below `root`, `None` if the path leaves the trie.
pub(crate) fn descend<R: ReadTx>(
    rx: &R,
    main: Table,
    root: &HexHash,
    tokens: &[u8],
) -> Result<Option<HexHash>, MerkleError> {
    let mut hash = *root;
    for &token in tokens {
        let child = rx.get_with(main, &hash, |bytes| find_child(bytes, token))?;
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
