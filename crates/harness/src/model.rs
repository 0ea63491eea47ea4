//! A reference model of the trie's state root: a pure function from the final
//! address → value mapping to the root hash, with no storage and no history.
//!
//! The workloads use it to fix the roots they expect, and the tests use it to check the workloads'
//! constants. It restates the Transact/Sawtooth node format (see `shared/DESIGN.md`): one node per
//! 2-character token, each node a CBOR map `{"c": {token: child hash}, "v": bytes | null}`, hashed
//! with the first 32 bytes of SHA-512. Unlike Transact it keeps values on interior nodes, so the
//! root really is a function of the mapping alone.

use std::collections::BTreeMap;

use sha2::{Digest, Sha512};

/// An address the model cannot place in a trie.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid address `{address}`: addresses are lowercase hex of even length")]
pub struct ModelError {
    /// The offending address.
    pub address: String,
}

/// Checks that `address` is lowercase hex of even length (the empty address is the root).
pub fn check_address(address: &str) -> Result<(), ModelError> {
    let valid = address.len().is_multiple_of(2)
        && address
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if valid {
        Ok(())
    } else {
        Err(ModelError {
            address: address.to_string(),
        })
    }
}

/// The first 32 bytes of SHA-512 over `bytes`, as 64 lowercase hex characters: the trie's node
/// hash, also used by Transact's tests to derive addresses from keys.
pub fn hash_hex(bytes: &[u8]) -> String {
    let digest = Sha512::digest(bytes);
    hex::encode(&digest[..32])
}

/// Writes a CBOR head for `major` type with argument `len`, with the length quirk of the encoder
/// Transact uses: 65,536..=1,048,575 takes the 8-byte form instead of the 4-byte one.
fn write_head(out: &mut Vec<u8>, major: u8, len: u64) {
    let top = major << 5;
    if len < 24 {
        out.push(top | len as u8);
    } else if len < 0x100 {
        out.push(top | 24);
        out.push(len as u8);
    } else if len < 0x1_0000 {
        out.push(top | 25);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else if len <= 1_048_575 || len > u64::from(u32::MAX) {
        out.push(top | 27);
        out.extend_from_slice(&len.to_be_bytes());
    } else {
        out.push(top | 26);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
}

fn write_text(out: &mut Vec<u8>, text: &str) {
    write_head(out, 3, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Encodes one node: `{"c": children, "v": value}`, children in ascending byte order of the
/// token (the order a `BTreeMap<String, _>` iterates in).
pub fn encode_node(value: Option<&[u8]>, children: &BTreeMap<String, String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + children.len() * 70 + value.map_or(0, <[u8]>::len));
    write_head(&mut out, 5, 2);
    write_text(&mut out, "c");
    write_head(&mut out, 5, children.len() as u64);
    for (token, hash) in children {
        write_text(&mut out, token);
        write_text(&mut out, hash);
    }
    write_text(&mut out, "v");
    match value {
        Some(bytes) => {
            write_head(&mut out, 2, bytes.len() as u64);
            out.extend_from_slice(bytes);
        }
        None => out.push(0xf6),
    }
    out
}

/// The hash of every node of the trie holding `state`, keyed by the node's path (the address
/// prefix it sits at; `""` is the root). Nodes exist exactly on the paths to present addresses.
pub fn node_hashes<V: AsRef<[u8]>>(
    state: &BTreeMap<String, V>,
) -> Result<BTreeMap<String, String>, ModelError> {
    // Every path that holds a node: each address and all its even-length prefixes.
    let mut paths: Vec<&str> = vec![""];
    for address in state.keys() {
        check_address(address)?;
        paths.extend((1..=address.len() / 2).map(|tokens| &address[..tokens * 2]));
    }
    paths.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    paths.dedup();

    // Deepest first, so every child is hashed before its parent.
    let mut children: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    let mut hashes = BTreeMap::new();
    for path in paths {
        let kids = children.remove(path).unwrap_or_default();
        let value = state.get(path).map(AsRef::as_ref);
        let hash = hash_hex(&encode_node(value, &kids));
        if !path.is_empty() {
            let (parent, token) = path.split_at(path.len() - 2);
            children
                .entry(parent)
                .or_default()
                .insert(token.to_string(), hash.clone());
        }
        hashes.insert(path.to_string(), hash);
    }
    Ok(hashes)
}

/// The state root of a trie holding exactly `state`.
pub fn root<V: AsRef<[u8]>>(state: &BTreeMap<String, V>) -> Result<String, ModelError> {
    let mut hashes = node_hashes(state)?;
    // `node_hashes` always hashes the root path.
    Ok(hashes.remove("").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(pairs: &[(&str, &[u8])]) -> BTreeMap<String, Vec<u8>> {
        pairs
            .iter()
            .map(|(a, v)| ((*a).to_string(), v.to_vec()))
            .collect()
    }

    #[test]
    fn encodes_the_design_example_node() {
        let children = BTreeMap::from([("ab".to_string(), "123".to_string())]);
        let bytes = encode_node(Some(b"hello"), &children);
        assert_eq!(hex::encode(bytes), "a26163a16261626331323361764568656c6c6f");
    }

    #[test]
    fn length_heads_follow_the_transact_encoder_quirk() {
        let head = |len| {
            let mut out = Vec::new();
            write_head(&mut out, 2, len);
            hex::encode(out)
        };
        assert_eq!(head(23), "57");
        assert_eq!(head(24), "5818");
        assert_eq!(head(65_535), "59ffff");
        assert_eq!(head(65_536), "5b0000000000010000");
        assert_eq!(head(1_048_575), "5b00000000000fffff");
        assert_eq!(head(1_048_576), "5a00100000");
    }

    #[test]
    fn matches_the_design_vectors() {
        let empty: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let cases: Vec<(BTreeMap<String, Vec<u8>>, &str)> = vec![
            (
                empty,
                "708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6",
            ),
            (
                state(&[("abcd", b"data_value")]),
                "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870",
            ),
            (
                state(&[("1234", b"deletable")]),
                "db73865199b319863790ff8505098b3302d4a10595a809c465364e55ff9e2fac",
            ),
            (
                state(&[
                    ("ab0000", b"0001"),
                    ("ab0a01", b"0002"),
                    ("abff00", b"0003"),
                ]),
                "19fcc3dfc5173fb3b12b55086f02c11f42a645a58da9a3f28d47b174946c0e3d",
            ),
            (
                state(&[("ab", &[b'x'; 65_536])]),
                "3fdce3c5df3b291a188e41eba24a65f2b88b49f1ea5ed23c3c25613517697754",
            ),
            (
                state(&[("ab", &[b'x'; 65_535])]),
                "9b93726ccb5449e836181810fc79191117a97eebf34d144f1d38bef80d83505e",
            ),
            (
                state(&[("ab", &[1]), ("abcd", &[2])]),
                "d162fcd181fc3857500ce987636fc7dd88e6ceaea734ab7a7a7c71dce316b179",
            ),
        ];
        for (content, expected) in cases {
            assert_eq!(root(&content).unwrap(), expected, "{:?}", content.keys());
        }
    }

    #[test]
    fn node_hashes_cover_every_path_and_only_those() {
        let hashes = node_hashes(&state(&[("ab00", b"1"), ("ab01", b"2")])).unwrap();
        let paths: Vec<&str> = hashes.keys().map(String::as_str).collect();
        assert_eq!(paths, ["", "ab", "ab00", "ab01"]);
        // Leaves carry no address, so equal values hash equally.
        let same = node_hashes(&state(&[("ab00", b"1"), ("ab01", b"1")])).unwrap();
        assert_eq!(same["ab00"], same["ab01"]);
    }

    #[test]
    fn rejects_odd_length_and_uppercase_addresses() {
        assert!(root(&state(&[("abc", b"1")])).is_err());
        assert!(root(&state(&[("AB", b"1")])).is_err());
        assert!(root(&state(&[("zz", b"1")])).is_err());
    }
}
