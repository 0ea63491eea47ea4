//! NOMT's path proofs in their wire form, and their check: [`encode`], [`verify`].
//!
//! A proof is nomt-core's `PathProof` (the terminal node met on the key's path, a leaf or a
//! terminator, and the sibling of every node above it) in borsh, nomt's own serialization (its
//! `borsh` feature): one byte for the terminal's kind; a leaf's key path and value hash (64
//! bytes) or a terminator's trie position (42 bytes: path, depth, node index); then the
//! siblings as a 4-byte count and 32 bytes each. In a tree of `n` random keys a path has about
//! log2(n) + 1 siblings, so a proof is about 70 + 32 * (log2(n) + 1) bytes (about 420 bytes at
//! 1,000 leaves, 740 at a million).

use bitvec::order::Msb0;
use bitvec::view::BitView as _;
use nomt_core::proof::PathProof;
use nomt_core::trie::LeafData;

use super::key::{key_path, value_hash, Hasher};
use super::NAME;
use crate::{EngineError, Root};

/// `proof` in its wire form.
pub(super) fn encode(proof: &PathProof) -> Result<Vec<u8>, EngineError> {
    borsh::to_vec(proof).map_err(|e| EngineError::Library {
        engine: NAME,
        message: format!("a proof does not serialize: {e}"),
    })
}

/// Checks that `proof` (wire form) shows `value` (`None`: absence) at `address` under `root`:
/// the path hashes up to `root`, and its terminal is the address's leaf with this value's hash
/// or, for absence, a terminator or another key's leaf.
pub(super) fn verify(
    root: &Root,
    address: &str,
    value: Option<&[u8]>,
    proof: &[u8],
) -> Result<(), EngineError> {
    let rejected = |message: String| EngineError::ProofRejected {
        engine: NAME,
        message,
    };
    let key = key_path(address)?;
    let root: [u8; 32] = root
        .0
        .as_slice()
        .try_into()
        .map_err(|_| rejected(format!("a root of {} bytes, not 32", root.0.len())))?;
    let proof: PathProof =
        borsh::from_slice(proof).map_err(|e| rejected(format!("undecodable proof: {e}")))?;
    let path = proof
        .verify::<Hasher>(key.view_bits::<Msb0>(), root)
        .map_err(|e| rejected(format!("the path does not hash to the root: {e:?}")))?;
    let confirmed = match value {
        Some(value) => path.confirm_value(&LeafData {
            key_path: key,
            value_hash: value_hash(value),
        }),
        None => path.confirm_nonexistence(&key),
    };
    match confirmed {
        Ok(true) => Ok(()),
        Ok(false) if value.is_some() => Err(rejected(
            "the path ends at another leaf, another value, or no leaf".into(),
        )),
        Ok(false) => Err(rejected("the path ends at this address's leaf".into())),
        Err(_) => Err(rejected("the proof is of another key's path".into())),
    }
}
