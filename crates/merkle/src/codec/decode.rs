//! The strict decoder: accepts exactly what the encoder writes, never panics.

use std::collections::BTreeMap;

use super::cbor::{header_len, MAJOR_BYTES, MAJOR_MAP, MAJOR_TEXT, NULL};
use super::encode::Node;
use super::error::DecodeError;

/// Decodes a node, accepting only the canonical encoding.
pub fn decode(bytes: &[u8]) -> Result<Node, DecodeError> {
    let raw = RawNode::parse(bytes)?;
    let mut children = BTreeMap::new();
    for child in &raw.children {
        let token = utf8(child.token, child.token_at)?;
        let hash = utf8(child.hash, child.hash_at)?;
        children.insert(token.to_owned(), hash.to_owned());
    }
    Ok(Node {
        value: raw.value.map(<[u8]>::to_vec),
        children,
    })
}

fn utf8(bytes: &[u8], at: usize) -> Result<&str, DecodeError> {
    std::str::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 { at })
}

/// One child entry of a [`RawNode`], borrowed from the encoding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawChild<'a> {
    pub token: &'a [u8],
    pub token_at: usize,
    pub hash: &'a [u8],
    pub hash_at: usize,
}

/// A validated node borrowed from its encoding: no copies, no UTF-8 conversion.
#[derive(Debug)]
pub(crate) struct RawNode<'a> {
    pub children: Vec<RawChild<'a>>,
    pub value: Option<&'a [u8]>,
}

impl<'a> RawNode<'a> {
    /// Parses and fully validates a canonical node (structure, order, canonical headers,
    /// no trailing bytes). Text contents are not checked for UTF-8 here.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut cur = Cursor::new(bytes);
        let count = cur.open_children()?;
        // Each entry needs at least two bytes: never trust `count` for allocation.
        let mut children = Vec::with_capacity(count.min(cur.remaining() / 2));
        let mut previous: Option<&[u8]> = None;
        for _ in 0..count {
            let child = cur.child()?;
            if previous.is_some_and(|p| p >= child.token) {
                return Err(DecodeError::UnsortedChildren { at: child.token_at });
            }
            previous = Some(child.token);
            children.push(child);
        }
        let value = cur.value()?;
        cur.finish()?;
        Ok(RawNode { children, value })
    }
}

/// A bounds-checked reader over an encoding.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.buf.len())
            .ok_or(DecodeError::UnexpectedEnd { at: self.buf.len() })?;
        let slice = &self.buf[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    pub(crate) fn byte(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    /// Reads a header of the expected major type and returns its length, insisting on the
    /// canonical form.
    pub(crate) fn header(&mut self, major: u8, expected: &'static str) -> Result<u64, DecodeError> {
        let at = self.pos;
        let initial = self.byte()?;
        if initial >> 5 != major {
            return Err(DecodeError::UnexpectedType {
                at,
                expected,
                found: initial,
            });
        }
        let info = initial & 0x1f;
        let len = match info {
            0..=23 => u64::from(info),
            24 => u64::from(self.byte()?),
            25 => {
                let b = self.take(2)?;
                u64::from(u16::from_be_bytes([b[0], b[1]]))
            }
            26 => {
                let b = self.take(4)?;
                u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            }
            27 => {
                let b = self.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                u64::from_be_bytes(a)
            }
            _ => return Err(DecodeError::NonCanonicalLength { at }),
        };
        if self.pos - at != header_len(len) {
            return Err(DecodeError::NonCanonicalLength { at });
        }
        Ok(len)
    }

    /// Reads a text or byte string of the given major type and returns (content, offset).
    pub(crate) fn string(
        &mut self,
        major: u8,
        expected: &'static str,
    ) -> Result<(&'a [u8], usize), DecodeError> {
        let len = self.header(major, expected)?;
        let at = self.pos;
        let len = usize::try_from(len).map_err(|_| DecodeError::UnexpectedEnd { at })?;
        Ok((self.take(len)?, at))
    }

    pub(crate) fn key(&mut self, key: &'static str) -> Result<(), DecodeError> {
        let at = self.pos;
        let (text, _) = self.string(MAJOR_TEXT, "a text key")?;
        if text != key.as_bytes() {
            return Err(DecodeError::WrongKey { at, expected: key });
        }
        Ok(())
    }

    /// Reads the node map header, the `"c"` key and the children map header.
    pub(crate) fn open_children(&mut self) -> Result<usize, DecodeError> {
        let entries = self.header(MAJOR_MAP, "the node map")?;
        if entries != 2 {
            return Err(DecodeError::WrongEntryCount { found: entries });
        }
        self.key("c")?;
        let at = self.pos;
        let count = self.header(MAJOR_MAP, "the children map")?;
        usize::try_from(count).map_err(|_| DecodeError::UnexpectedEnd { at })
    }

    pub(crate) fn child(&mut self) -> Result<RawChild<'a>, DecodeError> {
        let (token, token_at) = self.string(MAJOR_TEXT, "a child token (text)")?;
        let (hash, hash_at) = self.string(MAJOR_TEXT, "a child hash (text)")?;
        Ok(RawChild {
            token,
            token_at,
            hash,
            hash_at,
        })
    }

    /// Reads the `"v"` key and the value (byte string or null).
    pub(crate) fn value(&mut self) -> Result<Option<&'a [u8]>, DecodeError> {
        self.key("v")?;
        let at = self.pos;
        match self.buf.get(at) {
            Some(&NULL) => {
                self.pos += 1;
                Ok(None)
            }
            Some(_) => Ok(Some(self.string(MAJOR_BYTES, "a byte string or null")?.0)),
            None => Err(DecodeError::UnexpectedEnd { at }),
        }
    }

    pub(crate) fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(DecodeError::TrailingBytes {
                at: self.pos,
                extra,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode::tests::node;
    use crate::codec::encode::{encode, encoded_len};

    #[test]
    fn design_encoding_example_byte_for_byte() {
        let n = node(Some(b"hello"), &[("ab", "123")]);
        let bytes = encode(&n);
        assert_eq!(
            hex::encode(&bytes),
            "a26163a16261626331323361764568656c6c6f"
        );
        assert_eq!(decode(&bytes), Ok(n));
    }

    #[test]
    fn transact_decoding_example() {
        let bytes = hex::decode("a26163a162303063616263617647676f6f64627965").unwrap();
        assert_eq!(decode(&bytes), Ok(node(Some(b"goodbye"), &[("00", "abc")])));
    }

    #[test]
    fn quirk_lengths_round_trip_and_4_byte_form_is_rejected() {
        for len in [65_535usize, 65_536, 1_048_575, 1_048_576] {
            let n = node(Some(&vec![b'x'; len]), &[]);
            let bytes = encode(&n);
            assert_eq!(bytes.len(), encoded_len(&n));
            assert_eq!(decode(&bytes).as_ref(), Ok(&n), "length {len}");
        }
        // 65,536 in the standard 4-byte form is not what Transact writes.
        let mut bytes = vec![0xa2, 0x61, 0x63, 0xa0, 0x61, 0x76, 0x5a, 0, 1, 0, 0];
        bytes.extend(vec![b'x'; 65_536]);
        assert_eq!(
            decode(&bytes),
            Err(DecodeError::NonCanonicalLength { at: 6 })
        );
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let good = encode(&node(Some(b"v"), &[("ab", "h1"), ("cd", "h2")]));
        assert!(matches!(
            decode(&[]),
            Err(DecodeError::UnexpectedEnd { .. })
        ));
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "prefix of {cut} bytes");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(matches!(
            decode(&trailing),
            Err(DecodeError::TrailingBytes { extra: 1, .. })
        ));
        // "v" before "c".
        let swapped = hex::decode("a26176f66163a0").unwrap();
        assert!(matches!(
            decode(&swapped),
            Err(DecodeError::WrongKey { .. })
        ));
        // Three entries.
        assert!(matches!(
            decode(&[0xa3]),
            Err(DecodeError::WrongEntryCount { found: 3 })
        ));
        // Unsorted and repeated tokens.
        let unsorted = hex::decode("a26163a2626364613162616261326176f6").unwrap();
        assert!(matches!(
            decode(&unsorted),
            Err(DecodeError::UnsortedChildren { .. })
        ));
        let repeated = hex::decode("a26163a2626162613162616261326176f6").unwrap();
        assert!(matches!(
            decode(&repeated),
            Err(DecodeError::UnsortedChildren { .. })
        ));
        // Non-minimal header (24 written with one extra byte for 5).
        let long_form = hex::decode("b8026163a06176f6").unwrap();
        assert!(matches!(
            decode(&long_form),
            Err(DecodeError::NonCanonicalLength { .. })
        ));
        // Indefinite-length map.
        assert!(matches!(
            decode(&[0xbf]),
            Err(DecodeError::NonCanonicalLength { .. })
        ));
        // Value of the wrong type (an integer).
        let int_value = hex::decode("a26163a0617601").unwrap();
        assert!(matches!(
            decode(&int_value),
            Err(DecodeError::UnexpectedType { .. })
        ));
        // Invalid UTF-8 in a token.
        let bad_utf8 = hex::decode("a26163a162ff00616861766a").unwrap();
        assert!(decode(&bad_utf8).is_err());
        // A huge announced length must not allocate or panic.
        let huge = hex::decode("a26163bb7fffffffffffffff").unwrap();
        assert!(decode(&huge).is_err());
    }
}
