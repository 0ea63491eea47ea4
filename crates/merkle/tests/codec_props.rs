//! Property tests of the node codec: never panics, round-trips, accepts only canonical bytes.

use proptest::prelude::*;
use triebench_merkle::codec::{decode, encode, encoded_len, Node};

fn node_strategy() -> impl Strategy<Value = Node> {
    let text = || proptest::string::string_regex("(.|\n){0,40}").unwrap();
    let children = proptest::collection::btree_map(text(), text(), 0..12);
    let value = proptest::option::of(proptest::collection::vec(any::<u8>(), 0..300));
    (value, children).prop_map(|(value, children)| Node { value, children })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn round_trip(node in node_strategy()) {
        let bytes = encode(&node);
        prop_assert_eq!(bytes.len(), encoded_len(&node));
        prop_assert_eq!(decode(&bytes), Ok(node));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(node) = decode(&bytes) {
            // Only the canonical encoding decodes.
            prop_assert_eq!(encode(&node), bytes);
        }
    }

    #[test]
    fn node_like_prefix_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut bytes = vec![0xa2, 0x61, b'c'];
        bytes.extend(tail);
        if let Ok(node) = decode(&bytes) {
            prop_assert_eq!(encode(&node), bytes);
        }
    }

    #[test]
    fn mutated_encodings_never_panic(
        node in node_strategy(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let mut bytes = encode(&node);
        for (at, byte, kind) in edits {
            match kind {
                0 if !bytes.is_empty() => {
                    let i = at.index(bytes.len());
                    bytes[i] = byte;
                }
                1 => {
                    let i = at.index(bytes.len() + 1);
                    bytes.insert(i, byte);
                }
                _ if !bytes.is_empty() => {
                    let i = at.index(bytes.len());
                    bytes.truncate(i);
                }
                _ => {}
            }
        }
        if let Ok(decoded) = decode(&bytes) {
            prop_assert_eq!(encode(&decoded), bytes);
        }
    }
}
