//! [`Entry`]: one stored key and its value in a single allocation, ordered by the key's bytes.

use std::borrow::Borrow;
use std::cmp::Ordering;

/// A key and its value stored back to back in one boxed slice, so a put allocates once and a
/// lookup finds the value beside the key it compared. Ordered (and equal) by the key alone,
/// exactly as the key's bytes are, so lookups by `&[u8]` agree; the key's first 8 bytes are
/// held beside the pointer as one big-endian integer and compared first: the trie's keys are
/// 64-byte hashes, which almost always differ there, so a search rarely follows the pointer.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The key's first 8 bytes as a big-endian integer, zero-padded: `a.head < b.head` implies
    /// `a < b` in byte order, whatever the lengths.
    head: u64,
    key_len: usize,
    /// The key's bytes, then the value's.
    bytes: Box<[u8]>,
}

impl Entry {
    /// `key` holding `value`.
    pub(super) fn new(key: &[u8], value: &[u8]) -> Entry {
        let mut head = [0u8; 8];
        let n = key.len().min(8);
        head[..n].copy_from_slice(&key[..n]);
        let mut bytes = Vec::with_capacity(key.len() + value.len());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(value);
        Entry {
            head: u64::from_be_bytes(head),
            key_len: key.len(),
            bytes: bytes.into_boxed_slice(),
        }
    }

    /// `key` alone (a value-less entry: a pending delete).
    pub(super) fn key_only(key: &[u8]) -> Entry {
        Entry::new(key, &[])
    }

    pub(super) fn key(&self) -> &[u8] {
        &self.bytes[..self.key_len]
    }

    pub(super) fn value(&self) -> &[u8] {
        &self.bytes[self.key_len..]
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.head
            .cmp(&other.head)
            .then_with(|| self.key().cmp(other.key()))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Equal keys, whatever the values: the order's equality, as `Ord` requires.
impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.head == other.head && self.key() == other.key()
    }
}

impl Eq for Entry {}

impl Borrow<[u8]> for Entry {
    fn borrow(&self) -> &[u8] {
        self.key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// An entry's order is the order of its key's bytes, whatever their lengths and values.
        #[test]
        fn entry_order_is_key_byte_order(
            a in proptest::collection::vec(0u8..2, 0..12),
            b in proptest::collection::vec(0u8..2, 0..12),
            va in proptest::collection::vec(any::<u8>(), 0..4),
            vb in proptest::collection::vec(any::<u8>(), 0..4),
        ) {
            let (ea, eb) = (Entry::new(&a, &va), Entry::new(&b, &vb));
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
            prop_assert_eq!(ea == eb, a == b);
            prop_assert_eq!((ea.key(), ea.value()), (&a[..], &va[..]));
        }
    }
}
