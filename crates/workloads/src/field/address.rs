//! Field keys as Transact addresses (35 bytes, 70 hex characters): a 3-byte namespace per
//! workload family, then 32 bytes.
//!
//! * Firewood's keys are SHA-256 digests (32 bytes) of the row number: the address is the
//!   namespace and the key itself, so the key's bytes are the address's last 32.
//! * IAVL-bench's keys are 56 bytes, too long for an address: the address is the namespace and
//!   the first 32 bytes of SHA-512 of the key, as Sawtooth families derive addresses. Distinct
//!   keys get distinct addresses but for a SHA-512 collision in 256 bits.
//! * Merk's keys are 16 random bytes: the address is the namespace, the key's 16 bytes, then
//!   16 zero bytes, so distinct keys get distinct addresses and no hash is needed.

use sha2::{Digest, Sha256, Sha512};

/// The namespace of Firewood's workloads.
pub const FIREWOOD_NAMESPACE: &str = "f12e00";
/// The namespace of IAVL-bench's workload.
pub const IAVL_NAMESPACE: &str = "1a7100";
/// The namespace of Merk's workload.
pub const MERK_NAMESPACE: &str = "3e4c00";

/// Firewood's key of row `row`: SHA-256 of the row number's 8 little-endian bytes (its
/// benchmark hashes `row.to_ne_bytes()`; little-endian on the machines it runs on).
pub fn firewood_key(row: u64) -> [u8; 32] {
    Sha256::digest(row.to_le_bytes()).into()
}

/// The address of a Firewood key.
pub fn firewood_address(key: &[u8; 32]) -> String {
    format!("{FIREWOOD_NAMESPACE}{}", hex::encode(key))
}

/// The address of an IAVL-bench key of any length.
pub fn iavl_address(key: &[u8]) -> String {
    let digest = Sha512::digest(key);
    format!("{IAVL_NAMESPACE}{}", hex::encode(&digest[..32]))
}

/// The address of a Merk key: the namespace, the key, 16 zero bytes.
pub fn merk_address(key: &[u8; 16]) -> String {
    format!("{MERK_NAMESPACE}{}{}", hex::encode(key), "00".repeat(16))
}

/// The Merk key an address of [`merk_address`] holds; `None` for any other address (another
/// namespace, another length, non-zero padding, not hex).
pub fn merk_key(address: &str) -> Option<[u8; 16]> {
    let rest = address.strip_prefix(MERK_NAMESPACE)?;
    let (key, padding) = (rest.get(..32)?, rest.get(32..)?);
    if padding != "00".repeat(16) {
        return None;
    }
    let mut out = [0u8; 16];
    hex::decode_to_slice(key, &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{merk_address, merk_key};

    #[test]
    fn merk_keys_come_back_from_their_addresses() {
        let key: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xa5);
        assert_eq!(merk_key(&merk_address(&key)), Some(key));
        assert_eq!(merk_key(&merk_address(&[0; 16])), Some([0; 16]));
    }

    #[test]
    fn other_addresses_hold_no_merk_key() {
        let address = merk_address(&[7; 16]);
        assert_eq!(merk_key(&address.replacen("3e4c00", "f12e00", 1)), None);
        assert_eq!(merk_key(&address[..68]), None);
        assert_eq!(merk_key(&format!("{}01", &address[..68])), None);
        assert_eq!(merk_key(&address.replacen("07", "zz", 1)), None);
        assert_eq!(merk_key(""), None);
    }
}
