//! [`verify`]: recomputing the root from a proof and reading the claimed value off it.

use super::error::ProofError;
use super::path::Proof;
use crate::address;
use crate::hash::{hex_string, node_hash, parse_hex_hash, to_hex};
use crate::node::Layout;
use crate::MerkleError;

/// Checks that `proof` proves `value` at `address` under `root`: `Some(bytes)` that the
/// address holds exactly `bytes`, `None` that it holds no value.
///
/// The first node must hash to `root`, and each later node to the child hash its parent holds
/// for the address's next token; the proof must end where the address's path does (at the
/// address's own node, whose value is compared, or at a node with no child for the next token,
/// which proves absence). Everything a proof holds is checked: each node is hashed before it is
/// read and must be a valid trie node, so a proof that verifies shows the state `root` commits
/// to, whoever made it. The work is bounded by the address's length (one node per token, plus
/// the root).
pub fn verify(
    root: &str,
    address: &str,
    value: Option<&[u8]>,
    proof: &Proof,
) -> Result<(), ProofError> {
    let root_hash = parse_hex_hash(root.as_bytes()).ok_or_else(|| ProofError::InvalidRoot {
        root: root.to_string(),
    })?;
    let tokens = address::tokens(address).map_err(|e| ProofError::InvalidAddress {
        address: address.to_string(),
        reason: match e {
            MerkleError::InvalidAddress { reason, .. } => reason,
            _ => "not an address",
        },
    })?;
    let nodes = proof.nodes();
    let mut expected = root_hash;
    for (depth, node) in nodes.iter().enumerate() {
        let found = to_hex(&node_hash(node));
        if found != expected {
            return Err(if depth == 0 {
                ProofError::RootMismatch {
                    root: root.to_string(),
                    found: hex_string(&found),
                }
            } else {
                ProofError::NodeMismatch {
                    depth,
                    expected: hex_string(&expected),
                    found: hex_string(&found),
                }
            });
        }
        let layout =
            Layout::parse(node).map_err(|source| ProofError::Malformed { depth, source })?;
        let extra = nodes.len() - depth - 1;
        let proven = match tokens.get(depth) {
            // The address's own node: its value is what is proved.
            None => layout.value.map(|range| &node[range]),
            Some(&token) => match layout.find(node, token) {
                Ok(child) if extra > 0 => {
                    expected = layout.hash(node, child);
                    continue;
                }
                Ok(_) => return Err(ProofError::Truncated { depth }),
                // The path leaves the trie here: the address holds no value.
                Err(_) => None,
            },
        };
        if extra > 0 {
            return Err(ProofError::TrailingNodes { depth, extra });
        }
        return compare(address, value, proven);
    }
    Err(ProofError::Empty)
}

/// The claim against what the proof shows.
fn compare(address: &str, claimed: Option<&[u8]>, proven: Option<&[u8]>) -> Result<(), ProofError> {
    let address = || address.to_string();
    match (claimed, proven) {
        (Some(c), Some(p)) if c == p => Ok(()),
        (None, None) => Ok(()),
        (Some(_), Some(_)) => Err(ProofError::ValueMismatch { address: address() }),
        (Some(_), None) => Err(ProofError::ProvedAbsent { address: address() }),
        (None, Some(_)) => Err(ProofError::ProvedPresent { address: address() }),
    }
}
