//! The node format, byte for byte: a canonical CBOR encoder and a strict decoder.
//!
//! A node is a CBOR map with exactly two text keys, in this order:
//!
//! * `"c"`: a map from child token (text) to child hash (text), entries in ascending byte
//!   order of the token;
//! * `"v"`: the node's value as a byte string, or CBOR null (`0xf6`) when it has none.
//!
//! Length headers are CBOR's, with one quirk of the encoder Transact uses, applied to every
//! header (maps, text and byte strings alike): a length in 65,536..=1,048,575 is written in the
//! 8-byte form (`0x1b`-style, e.g. `0x5b` for a byte string) instead of the 4-byte form.
//! Lengths from 1,048,576 to `u32::MAX` use the 4-byte form; below 65,536 the shortest form.
//!
//! [`decode`] accepts exactly what [`encode`] writes (the only encoding Transact and this crate
//! produce) and reports anything else as a [`DecodeError`]; it never panics, whatever the input.
//!
//! ```
//! use triebench_merkle::codec::{self, Node};
//!
//! let mut node = Node { value: Some(b"hello".to_vec()), ..Node::default() };
//! node.children.insert("ab".into(), "123".into());
//! let bytes = codec::encode(&node);
//! assert_eq!(hex::encode(&bytes), "a26163a16261626331323361764568656c6c6f");
//! assert_eq!(codec::decode(&bytes)?, node);
//! # Ok::<(), codec::DecodeError>(())
//! ```
//!
//! # Layout
//!
//! * `cbor`: the CBOR major types nodes use, `null`, and the canonical length header with
//!   Transact's quirk;
//! * `encode`: [`Node`], [`encode`] and [`encoded_len`], and the pieces the trie uses to
//!   re-encode a stored node without decoding it;
//! * `decode`: [`decode`] and the bounds-checked reader it shares with the trie's in-place node
//!   reads;
//! * `error`: [`DecodeError`].

mod cbor;
mod decode;
mod encode;
mod error;

pub use crate::hash::{hash_hex, node_hash};
pub use decode::decode;
pub use encode::{encode, encoded_len, Node};
pub use error::DecodeError;

pub(crate) use decode::Cursor;
pub(crate) use encode::{write_children_header, write_value, NODE_PREFIX, VALUE_KEY};
