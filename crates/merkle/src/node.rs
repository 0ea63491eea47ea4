//! Trie nodes as stored: validated in place, read and re-encoded without decoding.
//!
//! A trie node's children all have two-character hex tokens and 64-character hex hashes, so
//! every child entry is exactly [`ENTRY`] bytes (`0x62 t t 0x78 0x40` + 64 hex digits). Once a
//! stored encoding is validated, its [`Layout`] finds a child by binary search over the entries
//! and lets a changed node be re-encoded by copying runs of unchanged entries.

use std::ops::Range;

use crate::codec::{self, Cursor, DecodeError};
use crate::hash::{token_hex, HexHash};

/// Bytes of one child entry: text(2) token + text(64) hash, headers included.
pub(crate) const ENTRY: usize = 1 + 2 + 2 + 64;

/// Where the parts of a validated node encoding are.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// Offset of the first child entry.
    pub entries_at: usize,
    /// Number of children.
    pub count: usize,
    /// The value item after the `"v"` key: header and content, or the null byte.
    pub value_item: Range<usize>,
    /// The value's content, `None` for null.
    pub value: Option<Range<usize>>,
}

fn is_lower_hex(c: u8) -> bool {
    (c.wrapping_sub(b'0') < 10) | (c.wrapping_sub(b'a') < 6)
}

/// All lowercase hex digits; written without early exit so that it vectorizes.
fn all_lower_hex(s: &[u8]) -> bool {
    s.iter().fold(true, |ok, &c| ok & is_lower_hex(c))
}

impl Layout {
    /// Validates a stored trie node completely: canonical structure, uniform entries with
    /// lowercase hex tokens and hashes, tokens strictly ascending, nothing after the value.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut cur = Cursor::new(bytes);
        let count = cur.open_children()?;
        let entries_at = cur.pos;
        let region = count
            .checked_mul(ENTRY)
            .filter(|&len| len <= cur.remaining())
            .ok_or(DecodeError::UnexpectedEnd { at: bytes.len() })?;
        let mut previous: Option<&[u8]> = None;
        let entries = bytes[entries_at..entries_at + region].chunks_exact(ENTRY);
        for (i, entry) in entries.enumerate() {
            let at = entries_at + i * ENTRY;
            let token = &entry[1..3];
            if entry[0] != 0x62 || !all_lower_hex(token) {
                return Err(DecodeError::InvalidToken { at: at + 1 });
            }
            if entry[3] != 0x78 || entry[4] != 0x40 || !all_lower_hex(&entry[5..]) {
                return Err(DecodeError::InvalidChildHash { at: at + 5 });
            }
            if previous.is_some_and(|p| p >= token) {
                return Err(DecodeError::UnsortedChildren { at: at + 1 });
            }
            previous = Some(token);
        }
        cur.take(region)?;
        let value_start = cur.pos + codec::VALUE_KEY.len();
        let value = cur.value()?.map(|v| cur.pos - v.len()..cur.pos);
        let value_item = value_start..cur.pos;
        cur.finish()?;
        Ok(Layout {
            entries_at,
            count,
            value_item,
            value,
        })
    }

    /// The byte range of entries `from..to`.
    pub(crate) fn entry_range(&self, from: usize, to: usize) -> Range<usize> {
        self.entries_at + from * ENTRY..self.entries_at + to * ENTRY
    }

    /// Token of entry `i` as its two hex characters.
    fn token_text<'b>(&self, bytes: &'b [u8], i: usize) -> &'b [u8] {
        let at = self.entries_at + i * ENTRY;
        &bytes[at + 1..at + 3]
    }

    /// Token of entry `i`.
    pub(crate) fn token(&self, bytes: &[u8], i: usize) -> u8 {
        let t = self.token_text(bytes, i);
        hex_value(t[0]) << 4 | hex_value(t[1])
    }

    /// Hash of entry `i`.
    pub(crate) fn hash(&self, bytes: &[u8], i: usize) -> HexHash {
        let at = self.entries_at + i * ENTRY + 5;
        let mut h = [0u8; 64];
        h.copy_from_slice(&bytes[at..at + 64]);
        h
    }

    /// Binary search for `token`: `Ok(index)` or `Err(insertion point)`.
    pub(crate) fn find(&self, bytes: &[u8], token: u8) -> Result<usize, usize> {
        let want = token_hex(token);
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.token_text(bytes, mid).cmp(&want[..]) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }
}

/// Value of a validated lowercase hex digit.
fn hex_value(c: u8) -> u8 {
    if c <= b'9' {
        c.wrapping_sub(b'0')
    } else {
        c.wrapping_sub(b'a').wrapping_add(10)
    }
}

/// Finds the child under `token` in a stored node by binary search, checking only the
/// entries it reads. For reads: a damaged node yields an error or a wrong miss, never a panic.
pub(crate) fn find_child(bytes: &[u8], token: u8) -> Result<Option<HexHash>, DecodeError> {
    let mut cur = Cursor::new(bytes);
    let count = cur.open_children()?;
    let entries_at = cur.pos;
    count
        .checked_mul(ENTRY)
        .filter(|&len| len <= cur.remaining())
        .ok_or(DecodeError::UnexpectedEnd { at: bytes.len() })?;
    let layout = Layout {
        entries_at,
        count,
        value_item: 0..0,
        value: None,
    };
    let check = |i: usize| -> Result<(), DecodeError> {
        let at = entries_at + i * ENTRY;
        let entry = &bytes[at..at + ENTRY];
        if entry[0] != 0x62 || !all_lower_hex(&entry[1..3]) {
            return Err(DecodeError::InvalidToken { at: at + 1 });
        }
        if entry[3] != 0x78 || entry[4] != 0x40 || !all_lower_hex(&entry[5..]) {
            return Err(DecodeError::InvalidChildHash { at: at + 5 });
        }
        Ok(())
    };
    let want = token_hex(token);
    let (mut lo, mut hi) = (0, count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        check(mid)?;
        match layout.token_text(bytes, mid).cmp(&want[..]) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(Some(layout.hash(bytes, mid))),
        }
    }
    Ok(None)
}

/// Appends one child entry.
pub(crate) fn write_entry(out: &mut Vec<u8>, token: u8, hash: &HexHash) {
    let [hi, lo] = token_hex(token);
    out.extend_from_slice(&[0x62, hi, lo, 0x78, 0x40]);
    out.extend_from_slice(hash);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Node;
    use crate::hash::hex_string;

    fn sample() -> (Node, Vec<u8>) {
        let mut node = Node {
            value: Some(b"val".to_vec()),
            ..Node::default()
        };
        node.children.insert("0a".into(), hex_string(&[b'a'; 64]));
        node.children.insert("ff".into(), hex_string(&[b'0'; 64]));
        let bytes = codec::encode(&node);
        (node, bytes)
    }

    #[test]
    fn layout_reads_a_general_encoding() {
        let (_, bytes) = sample();
        let layout = Layout::parse(&bytes).unwrap();
        assert_eq!(layout.count, 2);
        assert_eq!(layout.token(&bytes, 0), 0x0a);
        assert_eq!(layout.token(&bytes, 1), 0xff);
        assert_eq!(layout.hash(&bytes, 1), [b'0'; 64]);
        assert_eq!(&bytes[layout.value.clone().unwrap()], b"val");
        assert_eq!(&bytes[layout.value_item.clone()], b"\x43val");
        assert_eq!(layout.find(&bytes, 0x0a), Ok(0));
        assert_eq!(layout.find(&bytes, 0x0b), Err(1));
        assert_eq!(layout.find(&bytes, 0x00), Err(0));
        assert_eq!(find_child(&bytes, 0xff), Ok(Some([b'0'; 64])));
        assert_eq!(find_child(&bytes, 0x01), Ok(None));
        // Re-encoding by copying entries gives the same bytes.
        let mut out = codec::NODE_PREFIX.to_vec();
        codec::write_children_header(&mut out, 2);
        out.extend_from_slice(&bytes[layout.entry_range(0, 1)]);
        write_entry(&mut out, 0xff, &[b'0'; 64]);
        out.extend_from_slice(&codec::VALUE_KEY);
        out.extend_from_slice(&bytes[layout.value_item]);
        assert_eq!(out, bytes);
    }

    #[test]
    fn foreign_tokens_and_hashes_are_rejected() {
        let mut node = Node::default();
        node.children.insert("ab".into(), "123".into());
        let bytes = codec::encode(&node);
        assert!(Layout::parse(&bytes).is_err());
        let mut node = Node::default();
        node.children.insert("AB".into(), "0".repeat(64));
        let bytes = codec::encode(&node);
        assert!(matches!(
            Layout::parse(&bytes),
            Err(DecodeError::InvalidToken { .. })
        ));
        assert!(matches!(
            find_child(&bytes, 0xab),
            Err(DecodeError::InvalidToken { .. })
        ));
        let mut node = Node::default();
        node.children.insert("ab".into(), "G".repeat(64));
        let bytes = codec::encode(&node);
        assert!(matches!(
            Layout::parse(&bytes),
            Err(DecodeError::InvalidChildHash { .. })
        ));
    }

    #[test]
    fn hex_check() {
        assert!(all_lower_hex(b"0123456789abcdef"));
        for c in [b'/', b':', b'`', b'g', b'A', b'F', 0, 0xff] {
            assert!(!all_lower_hex(&[c]), "{c}");
        }
    }
}
