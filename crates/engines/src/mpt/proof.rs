//! The MPT's proofs, as Ethereum's `eth_getProof` gives them: the encodings of the stored
//! nodes on a key's path from the root (inline nodes travel inside their parents), here sent
//! as one RLP list of those encodings. The same proof shows a value or its absence: a checker
//! looks the key up among the proof's nodes, each found by its hash, from the root down.

use std::collections::HashMap;

use alloy_rlp::{Encodable, Header};

use super::node::{keccak256, nibbles, Hash, NAME};
use super::walk::lookup;
use crate::EngineError;

fn rejected(message: impl Into<String>) -> EngineError {
    EngineError::ProofRejected {
        engine: NAME,
        message: message.into(),
    }
}

/// The proof's wire form: an RLP list of the nodes' encodings.
pub(crate) fn encode(nodes: &[Vec<u8>]) -> Vec<u8> {
    let payload_length = nodes.iter().map(|n| n.as_slice().length()).sum();
    let mut out = Vec::with_capacity(payload_length + 9);
    Header {
        list: true,
        payload_length,
    }
    .encode(&mut out);
    for node in nodes {
        node.as_slice().encode(&mut out);
    }
    out
}

/// The nodes of a proof in wire form, by hash.
fn decode(proof: &[u8]) -> Result<HashMap<Hash, Vec<u8>>, EngineError> {
    let mut buf = proof;
    let header = Header::decode(&mut buf).map_err(|e| rejected(e.to_string()))?;
    if !header.list || buf.len() != header.payload_length {
        return Err(rejected("not one RLP list"));
    }
    let mut nodes = HashMap::new();
    while !buf.is_empty() {
        let node = Header::decode_bytes(&mut buf, false).map_err(|e| rejected(e.to_string()))?;
        nodes.insert(keccak256(node), node.to_vec());
    }
    Ok(nodes)
}

/// Checks that `proof` shows `value` (`None`: absence) at `key` under `root`.
pub(crate) fn verify(
    root: &Hash,
    key: &[u8],
    value: Option<&[u8]>,
    proof: &[u8],
) -> Result<(), EngineError> {
    let nodes = decode(proof)?;
    let found = lookup(root, &nibbles(key), &mut |hash| {
        nodes
            .get(hash)
            .cloned()
            .ok_or_else(|| rejected(format!("node {} is not in the proof", hex::encode(hash))))
    })
    .map_err(|e| match e {
        EngineError::Corrupt { message, .. } => rejected(message),
        other => other,
    })?;
    // An empty value is absence in an MPT.
    let claimed = value.filter(|v| !v.is_empty());
    if found.as_deref() == claimed {
        Ok(())
    } else {
        Err(rejected(format!(
            "the proof shows {}, not {}",
            shown(found.as_deref()),
            shown(claimed)
        )))
    }
}

fn shown(value: Option<&[u8]>) -> String {
    value.map_or_else(
        || "absence".to_string(),
        |v| format!("0x{}", hex::encode(v)),
    )
}
