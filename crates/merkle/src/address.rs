//! Addresses: lowercase hex strings of even length, one token (byte) per two characters.

use crate::hash::hex_digit;
use crate::MerkleError;

fn invalid(address: &str, reason: &'static str) -> MerkleError {
    MerkleError::InvalidAddress {
        address: address.to_string(),
        reason,
    }
}

/// The longest address accepted, in hex characters (4,096 levels). Production addresses are
/// 70 characters; the cap bounds the work any input or damaged store can cause.
pub const MAX_ADDRESS_LEN: usize = 8192;

/// Checks that `address` is a valid trie address: lowercase hex of even length, at most
/// [`MAX_ADDRESS_LEN`] characters (the empty address is the root). Parsers of user input use
/// this to reject a bad address before any commit is attempted.
pub fn check_address(address: &str) -> Result<(), MerkleError> {
    tokens(address).map(|_| ())
}

/// The tokens of an address, one byte per two hex characters.
pub(crate) fn tokens(address: &str) -> Result<Vec<u8>, MerkleError> {
    token_iter(address).map(Iterator::collect)
}

/// The tokens of an address without collecting them: the whole address is checked first (same
/// errors as [`tokens`]), then the tokens are read off it.
pub(crate) fn token_iter(address: &str) -> Result<impl Iterator<Item = u8> + '_, MerkleError> {
    let bytes = address.as_bytes();
    if bytes.len() > MAX_ADDRESS_LEN {
        return Err(invalid(address, "longer than 8192 characters"));
    }
    if !bytes.len().is_multiple_of(2) {
        return Err(invalid(
            address,
            "odd length (tokens are two hex characters)",
        ));
    }
    if !bytes.iter().all(|&c| hex_digit(c).is_some()) {
        return Err(invalid(address, "not lowercase hex (0-9, a-f)"));
    }
    Ok(bytes
        .chunks_exact(2)
        .map(|pair| hex_digit(pair[0]).unwrap_or(0) << 4 | hex_digit(pair[1]).unwrap_or(0)))
}

/// A prefix: the tokens of its even part and, for an odd length, the high nibble of the
/// next token.
pub(crate) fn prefix(prefix: &str) -> Result<(Vec<u8>, Option<u8>), MerkleError> {
    let bytes = prefix.as_bytes();
    if bytes.len() > MAX_ADDRESS_LEN {
        return Err(invalid(prefix, "longer than 8192 characters"));
    }
    let even = bytes.len() & !1;
    // Slicing at an even byte index of an ASCII-checked string: check ASCII first.
    if !prefix.is_ascii() {
        return Err(invalid(prefix, "not lowercase hex (0-9, a-f)"));
    }
    let tokens =
        tokens(&prefix[..even]).map_err(|_| invalid(prefix, "not lowercase hex (0-9, a-f)"))?;
    let nibble = match bytes.get(even) {
        Some(&c) => {
            Some(hex_digit(c).ok_or_else(|| invalid(prefix, "not lowercase hex (0-9, a-f)"))?)
        }
        None => None,
    };
    Ok((tokens, nibble))
}

/// The address of a token path.
pub(crate) fn from_tokens(tokens: &[u8]) -> String {
    let mut s = String::with_capacity(tokens.len() * 2);
    for &t in tokens {
        let [hi, lo] = crate::hash::token_hex(t);
        s.push(char::from(hi));
        s.push(char::from(lo));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_even_lowercase_hex() {
        assert_eq!(tokens("").unwrap(), Vec::<u8>::new());
        assert_eq!(tokens("ab0f").unwrap(), vec![0xab, 0x0f]);
        assert!(matches!(
            tokens("abc"),
            Err(MerkleError::InvalidAddress { .. })
        ));
        assert!(matches!(
            tokens("AB"),
            Err(MerkleError::InvalidAddress { .. })
        ));
        assert!(matches!(
            tokens("zz"),
            Err(MerkleError::InvalidAddress { .. })
        ));
        assert!(matches!(
            tokens("é1"),
            Err(MerkleError::InvalidAddress { .. })
        ));
        assert_eq!(from_tokens(&[0xab, 0x0f]), "ab0f");
        for address in ["", "ab0f", "abc", "AB", "zz", "é1"] {
            assert_eq!(
                token_iter(address).map(Iterator::collect::<Vec<u8>>).ok(),
                tokens(address).ok()
            );
        }
        assert!(tokens(&"ab".repeat(MAX_ADDRESS_LEN / 2)).is_ok());
        assert!(tokens(&"ab".repeat(MAX_ADDRESS_LEN / 2 + 1)).is_err());
    }

    #[test]
    fn prefixes_may_be_odd() {
        assert_eq!(prefix("ab1").unwrap(), (vec![0xab], Some(1)));
        assert_eq!(prefix("").unwrap(), (vec![], None));
        assert!(prefix("abX").is_err());
        assert!(prefix("aé").is_err());
    }
}
