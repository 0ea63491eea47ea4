//! NOMT's keys and hashes for trie addresses and values: [`Hasher`], [`key_path`],
//! [`value_hash`].

use nomt_core::hasher::ValueHasher;
use nomt_core::trie::{KeyPath, ValueHash};
use sha2::{Digest, Sha256};

use crate::engine::address_bytes;
use crate::EngineError;

/// NOMT's hasher here: SHA-256 for nodes and values (`nomt_core::hasher::Sha2Hasher`), from
/// sha2, which the crate uses already; NOMT's other, BLAKE3, would add the blake3 crate.
pub type Hasher = nomt_core::hasher::Sha2Hasher;

/// NOMT's 256-bit key path for a trie address: the SHA-256 of the address's bytes (the hex
/// decoded), as [`JmtEngine`](crate::JmtEngine) hashes them.
pub(super) fn key_path(address: &str) -> Result<KeyPath, EngineError> {
    Ok(Sha256::digest(address_bytes(address)?).into())
}

/// The hash a leaf commits to for `value`: [`Hasher`]'s value hash (SHA-256).
pub(super) fn value_hash(value: &[u8]) -> ValueHash {
    Hasher::hash_value(value)
}
